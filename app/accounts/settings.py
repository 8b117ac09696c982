"""A learner's study settings: one model for the settings form, the backup and the learner row."""

from collections.abc import Mapping
from typing import Annotated, Literal, Self
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_serializer,
)
from pydantic_core import ErrorDetails

from app.errors import Invalid


def known_zone(value: str) -> str:
    """`value` if it names an IANA zone; ValueError otherwise."""
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(f"unknown time zone '{value}' (use a name like Asia/Shanghai)") from None
    return value


def _weekdays(value: object) -> object:
    # Stored and backed up as digits ("035"); the form sends one value per ticked box.
    return list(value) if isinstance(value, str) else value


def _at_most_six(days: list[int]) -> list[int]:
    if len(set(days)) == 7:
        raise ValueError("at most six easy days: one day a week must take the load")
    return sorted(set(days))


Zone = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(known_zone)]
Weekday = Annotated[int, Field(ge=0, le=6)]
EasyDays = Annotated[list[Weekday], BeforeValidator(_weekdays), AfterValidator(_at_most_six)]
LeechAction = Literal["suspend", "tag"]

# How a refused value is named to the learner.
LABELS = {
    "timezone": "time zone",
    "desired_retention": "desired retention",
    "new_per_day": "new cards per day",
    "max_reviews_per_day": "maximum reviews per day",
    "rollover_hour": "rollover hour",
    "leech_threshold": "leech threshold",
    "leech_action": "leech action",
    "load_balance": "load balancing",
    "easy_days": "easy days",
}


class LearnerSettings(BaseModel):
    """What a learner chooses about their study; every field is a column of the learner."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False, str_strip_whitespace=True)

    # In the settings form's order, which is the order a refusal names the first bad value in.
    desired_retention: float = Field(ge=0.7, le=0.99)
    new_per_day: int = Field(ge=0, le=9999)
    max_reviews_per_day: int = Field(ge=0, le=99999)
    rollover_hour: int = Field(ge=0, le=23)
    timezone: Zone
    # Absent in backups made before leeches: the defaults. A threshold of 0 turns detection off.
    leech_threshold: int = Field(default=8, ge=0, le=99)
    leech_action: LeechAction = "suspend"
    # Absent in backups made before load balancing: off, no easy days. Weekdays: 0 is Monday.
    load_balance: bool = False
    easy_days: EasyDays = []

    @classmethod
    def of(cls, learner: object) -> Self:
        """The settings a learner row holds."""
        return cls.model_validate(learner, from_attributes=True)

    @classmethod
    def parse(cls, values: Mapping[str, object]) -> Self:
        """Settings from a form's values; Invalid names the first bad one."""
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise _problem(exc.errors()[0], values) from None

    @field_serializer("easy_days")
    def _digits(self, days: list[int]) -> str:
        return "".join(map(str, days))

    def columns(self) -> dict[str, object]:
        """The learner columns these settings set."""
        return self.model_dump(include=set(LearnerSettings.model_fields))


def _bounds(name: str) -> tuple[float, float] | None:
    field = LearnerSettings.model_fields.get(name)
    limits = {
        key: getattr(m, key)
        for m in (field.metadata if field else ())
        for key in ("ge", "le")
        if hasattr(m, key)
    }
    return (limits["ge"], limits["le"]) if len(limits) == 2 else None


def _problem(error: ErrorDetails, values: Mapping[str, object]) -> Invalid:
    name = str(error["loc"][0]) if error["loc"] else ""
    label = LABELS.get(name, name)
    kind = error["type"]
    if name == "timezone":
        return Invalid("unknown_time_zone", zone=str(values.get("timezone", "")).strip())
    if name == "easy_days":
        if kind == "value_error":
            return Invalid("easy_days_too_many")
        return Invalid("easy_days_weekdays")
    if name == "leech_action":
        return Invalid("leech_action_invalid")
    if kind in ("greater_than_equal", "less_than_equal") and (bounds := _bounds(name)):
        return Invalid(
            "setting_out_of_range", name=label, low=f"{bounds[0]:g}", high=f"{bounds[1]:g}"
        )
    return Invalid("setting_not_a_number", name=label)
