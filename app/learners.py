"""Learners: finding them, their own time (zone, study day), their study settings."""

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from app.cardstate import aware
from app.errors import StudyError
from app.models import Learner
from app.parameters import usable_parameters

Parameters = tuple[float, ...]


def get_learner(session: Session, name: str, timezone: str = "UTC") -> Learner:
    """Return the learner called `name`, creating it on first use."""
    learner = session.exec(select(Learner).where(Learner.name == name)).first()
    if learner is None:
        learner = Learner(name=name, timezone=timezone)
        session.add(learner)
        try:
            session.commit()
        except IntegrityError:  # another process created it first
            session.rollback()
            return session.exec(select(Learner).where(Learner.name == name)).one()
        session.refresh(learner)
    return learner


def personal_parameters(learner: Learner) -> Parameters | None:
    """The learner's fitted FSRS parameters (see app.optimize), or None for the defaults.

    A stored set the model cannot use (the wrong length, NaN) schedules with the defaults.
    """
    return usable_parameters(learner.fsrs_parameters)


def learner_zone(learner: Learner) -> ZoneInfo:
    """The learner's time zone (UTC if the stored name is not a known zone)."""
    try:
        return ZoneInfo(learner.timezone)
    except (KeyError, ValueError):
        return ZoneInfo("UTC")


def local_day(learner: Learner, moment: datetime) -> date:
    """The learner's study day that `moment` falls in; days roll over at `rollover_hour`."""
    local = aware(moment).astimezone(learner_zone(learner))
    return (local - timedelta(hours=learner.rollover_hour)).date()


def day_start(learner: Learner, day: date) -> datetime:
    """When the learner's study day `day` begins, in UTC."""
    local = datetime.combine(day, time(learner.rollover_hour), tzinfo=learner_zone(learner))
    return local.astimezone(UTC)


def study_day(learner: Learner, now: datetime) -> tuple[datetime, datetime]:
    """The [start, end) of the learner's current study day, in UTC."""
    day = local_day(learner, now)
    return day_start(learner, day), day_start(learner, day + timedelta(days=1))


def _number(value: object, name: str, kind: type, low: float, high: float) -> float:
    try:
        number = kind(str(value).strip())
    except ValueError:
        raise StudyError(f"{name} must be a number") from None
    if not low <= number <= high:
        raise StudyError(f"{name} must be between {low:g} and {high:g}")
    return number


def update_settings(
    session: Session,
    *,
    learner: Learner,
    desired_retention: object,
    new_per_day: object,
    max_reviews_per_day: object,
    rollover_hour: object,
    timezone: object,
    load_balance: bool | None = None,
    easy_days: Sequence[object] | None = None,
) -> Learner:
    """Validate and store a learner's settings; StudyError names the first bad value.

    `load_balance` and `easy_days` (weekdays, 0 = Monday) stay as they are when None.
    """
    retention = _number(desired_retention, "desired retention", float, 0.7, 0.99)
    new = int(_number(new_per_day, "new cards per day", int, 0, 9999))
    reviews = int(_number(max_reviews_per_day, "maximum reviews per day", int, 0, 99999))
    hour = int(_number(rollover_hour, "rollover hour", int, 0, 23))
    zone = str(timezone).strip()
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise StudyError(f"unknown time zone '{zone}' (use a name like Asia/Shanghai)") from None
    if easy_days is not None:
        days = {str(day).strip() for day in easy_days}
        if not days <= set("0123456"):
            raise StudyError("easy days must be weekdays 0 (Monday) to 6 (Sunday)")
        if len(days) == 7:
            raise StudyError("at most six easy days: one day a week must take the load")
        learner.easy_days = "".join(sorted(days))
    if load_balance is not None:
        learner.load_balance = load_balance
    learner.desired_retention = retention
    learner.new_per_day = new
    learner.max_reviews_per_day = reviews
    learner.rollover_hour = hour
    learner.timezone = zone
    session.add(learner)
    session.commit()
    session.refresh(learner)
    return learner
