"""A learner's own row by id: the one lookup behind every page and API that names a private row."""

from typing import Protocol, TypeVar

from sqlmodel import Session

from app.errors import NotFound
from app.infra.models import Learner


class LearnerRow(Protocol):
    learner_id: int


Row = TypeVar("Row", bound=LearnerRow)


def owned(session: Session, model: type[Row], row_id: int, *, learner: Learner, code: str) -> Row:
    """The `model` row `row_id` if it is `learner`'s; NotFound(`code`) otherwise.

    Another learner's row is reported as missing, not forbidden: its existence is private too,
    to administrators as well.
    """
    row = session.get(model, row_id)
    if row is None or row.learner_id != learner.id:
        raise NotFound(code)
    return row
