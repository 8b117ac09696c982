"""Learners: finding them, their own time (zone, study day), their study settings."""

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from app.errors import Invalid
from app.infra.models import Learner
from app.scheduling.cardstate import aware
from app.scheduling.parameters import usable_parameters

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
    """The learner's fitted FSRS parameters (see app.scheduling.optimize), or None for the defaults.

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


def new_limit(learner: Learner, now: datetime) -> int:
    """New cards the learner takes in the study day of `now`, a custom-study raise included."""
    extra = learner.extra_new if learner.extra_new_day == local_day(learner, now) else 0
    return learner.new_per_day + extra


def _number(value: object, name: str, kind: type, low: float, high: float) -> float:
    try:
        number = kind(str(value).strip())
    except ValueError:
        raise Invalid("setting_not_a_number", name=name) from None
    if not low <= number <= high:
        raise Invalid("setting_out_of_range", name=name, low=f"{low:g}", high=f"{high:g}")
    return number


def known_zone(value: object) -> str:
    """`value` as an IANA zone name; Invalid when there is no such zone."""
    zone = str(value).strip()
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise Invalid("unknown_time_zone", zone=zone) from None
    return zone


@cache
def zone_names() -> tuple[str, ...]:
    """Every IANA zone this machine knows, sorted, for the settings page's list."""
    return tuple(sorted(available_timezones() - {"localtime", "Factory"}))


LEECH_ACTIONS = ("suspend", "tag")


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
    leech_threshold: object = None,
    leech_action: object = None,
) -> Learner:
    """Validate and store a learner's settings; Invalid names the first bad value.

    `load_balance` and `easy_days` (weekdays, 0 = Monday) and the leech settings stay as they
    are when None.
    """
    retention = _number(desired_retention, "desired retention", float, 0.7, 0.99)
    new = int(_number(new_per_day, "new cards per day", int, 0, 9999))
    reviews = int(_number(max_reviews_per_day, "maximum reviews per day", int, 0, 99999))
    hour = int(_number(rollover_hour, "rollover hour", int, 0, 23))
    zone = known_zone(timezone)
    if easy_days is not None:
        days = {str(day).strip() for day in easy_days}
        if not days <= set("0123456"):
            raise Invalid("easy_days_weekdays")
        if len(days) == 7:
            raise Invalid("easy_days_too_many")
        learner.easy_days = "".join(sorted(days))
    if load_balance is not None:
        learner.load_balance = load_balance
    if leech_threshold is not None:
        # 0 turns leech detection off.
        learner.leech_threshold = int(_number(leech_threshold, "leech threshold", int, 0, 99))
    if leech_action is not None:
        if leech_action not in LEECH_ACTIONS:
            raise Invalid("leech_action_invalid")
        learner.leech_action = str(leech_action)
    learner.desired_retention = retention
    learner.new_per_day = new
    learner.max_reviews_per_day = reviews
    learner.rollover_hour = hour
    learner.timezone = zone
    learner.timezone_chosen = True
    session.add(learner)
    session.commit()
    session.refresh(learner)
    return learner


def choose_zone(session: Session, *, learner: Learner, timezone: object) -> Learner:
    """Store the zone the learner chose (the browser's, offered on a first visit)."""
    learner.timezone = known_zone(timezone)
    learner.timezone_chosen = True
    session.add(learner)
    session.commit()
    session.refresh(learner)
    return learner


MAX_EXTRA_NEW = 9999


def add_new_today(session: Session, *, learner: Learner, count: object, now: datetime) -> Learner:
    """Raise today's new-card limit by `count`, for the learner's current study day only."""
    more = int(_number(count, "extra new cards", int, 1, MAX_EXTRA_NEW))
    today = local_day(learner, now)
    already = learner.extra_new if learner.extra_new_day == today else 0
    learner.extra_new = min(already + more, MAX_EXTRA_NEW)
    learner.extra_new_day = today
    session.add(learner)
    session.commit()
    session.refresh(learner)
    return learner
