"""FSRS-6 parameter vectors: the defaults, and the check every stored or restored set passes.

The scheduler (`fsrs`), the fitter and the simulator (`fsrs-rs-python`) all use FSRS-6, whose
model has 21 parameters; a test checks that both packages' defaults are this one vector.
"""

import math
from collections.abc import Sequence

from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from app.errors import Invalid

MODEL = "FSRS-6"
DEFAULT_PARAMETERS: tuple[float, ...] = (
    0.212,
    1.2931,
    2.3065,
    8.2956,
    6.4133,
    0.8334,
    3.0194,
    0.001,
    1.8722,
    0.1666,
    0.796,
    1.4835,
    0.0614,
    0.2629,
    1.6483,
    0.6014,
    1.8729,
    0.5425,
    0.0912,
    0.0658,
    0.1542,
)
COUNT = len(DEFAULT_PARAMETERS)


class BadParameters(Invalid):
    """A parameter vector the model cannot use; `reason` names the i18n message."""

    def __init__(self, reason: str, **details: object) -> None:
        super().__init__(f"parameters_{reason}", key=f"params.{reason}", **details)
        self.reason = reason
        self.details = details
        # What a failed job records as its result, so a page can say it in the reader's language.
        self.result = {"reason": reason, **details}


def check_parameters(values: Sequence[object]) -> tuple[float, ...]:
    """Return `values` as FSRS-6 parameters, or raise BadParameters saying what is wrong."""
    if len(values) != COUNT:
        raise BadParameters("wrong_length", count=len(values), expected=COUNT)
    numbers: list[float] = []
    for index, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BadParameters("not_finite", index=index)
        if not math.isfinite(value):
            raise BadParameters("not_finite", index=index)
        low, high = LOWER_BOUNDS_PARAMETERS[index], UPPER_BOUNDS_PARAMETERS[index]
        if not low <= value <= high:
            raise BadParameters("out_of_range", index=index)
        numbers.append(float(value))
    return tuple(numbers)


def usable_parameters(values: Sequence[object] | None) -> tuple[float, ...] | None:
    """The stored parameters if the model can use them, else None (the defaults)."""
    if not values:
        return None
    try:
        return check_parameters(values)
    except BadParameters:
        return None
