"""A learner's study settings."""

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlmodel import Session

from app.models import Learner
from app.study import StudyError


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
) -> Learner:
    """Validate and store a learner's settings; StudyError names the first bad value."""
    retention = _number(desired_retention, "desired retention", float, 0.7, 0.99)
    new = int(_number(new_per_day, "new cards per day", int, 0, 9999))
    reviews = int(_number(max_reviews_per_day, "maximum reviews per day", int, 0, 99999))
    hour = int(_number(rollover_hour, "rollover hour", int, 0, 23))
    zone = str(timezone).strip()
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise StudyError(f"unknown time zone '{zone}' (use a name like Asia/Shanghai)") from None
    learner.desired_retention = retention
    learner.new_per_day = new
    learner.max_reviews_per_day = reviews
    learner.rollover_hour = hour
    learner.timezone = zone
    session.add(learner)
    session.commit()
    session.refresh(learner)
    return learner
