"""A learner's study day: their time zone and the hour their day rolls over.

Scheduling, study, statistics and interviews all count in the learner's days, so the rules sit
below all of them.
"""

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from app.infra.models import Learner
from app.scheduling.cardstate import aware

# A card counts as mature once its stability reaches three weeks (Anki's threshold, in days).
MATURE_DAYS = 21


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
