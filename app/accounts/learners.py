"""Learners: finding them, their own time (zone, study day), their study settings."""

from datetime import datetime
from functools import cache
from zoneinfo import available_timezones

from sqlalchemy import bindparam
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select
from sqlmodel.sql.expression import SelectOfScalar

from app.accounts.settings import LearnerSettings, known_zone
from app.errors import Invalid
from app.infra.db import Database, database_of
from app.infra.models import Learner
from app.scheduling.parameters import usable_parameters
from app.scheduling.studyday import local_day

Parameters = tuple[float, ...]


def get_learner(session: Session, name: str, timezone: str = "UTC") -> Learner:
    """Return the learner called `name`, creating it on first use."""
    named = {"name": name}
    learner = session.exec(_named_statement(), params=named).first()
    if learner is None:
        learner = Learner(name=name, timezone=timezone)
        try:
            # Found from the session: every caller only reads (a request's identity, a CLI
            # command, a backup's owner), and this first-use write is the only one it makes.
            with database_of(session).writing(session):
                session.add(learner)
        except IntegrityError:  # another process created it first
            return session.exec(_named_statement(), params=named).one()
        session.refresh(learner)
    return learner


@cache
def _named_statement() -> SelectOfScalar[Learner]:
    # Built once: the local learner is looked up by name on every request.
    return select(Learner).where(Learner.name == bindparam("name"))


def personal_parameters(learner: Learner) -> Parameters | None:
    """The learner's fitted FSRS parameters (see app.scheduling.optimize), or None for the defaults.

    A stored set the model cannot use (the wrong length, NaN) schedules with the defaults.
    """
    return usable_parameters(learner.fsrs_parameters)


def new_limit(learner: Learner, now: datetime) -> int:
    """New cards the learner takes in the study day of `now`, a custom-study raise included."""
    extra = learner.extra_new if learner.extra_new_day == local_day(learner, now) else 0
    return learner.new_per_day + extra


@cache
def zone_names() -> tuple[str, ...]:
    """Every IANA zone this machine knows, sorted, for the settings page's list."""
    return tuple(sorted(available_timezones() - {"localtime", "Factory"}))


def update_settings(
    session: Session, *, database: Database, learner: Learner, settings: LearnerSettings
) -> Learner:
    """Store a learner's settings (the zone counts as chosen)."""
    return _store(
        session, learner, {**settings.columns(), "timezone_chosen": True}, database=database
    )


def _store(
    session: Session, learner: Learner, changes: dict[str, object], *, database: Database
) -> Learner:
    """Write `changes` to the learner's row and read it back."""
    with database.writing(session):
        for name, value in changes.items():
            setattr(learner, name, value)
        session.add(learner)
    session.refresh(learner)
    return learner


def choose_zone(
    session: Session, *, database: Database, learner: Learner, timezone: object
) -> Learner:
    """Store the zone the learner chose (the browser's, offered on a first visit)."""
    zone = str(timezone).strip()
    try:
        chosen = known_zone(zone)
    except ValueError:
        raise Invalid("unknown_time_zone", zone=zone) from None
    return _store(
        session, learner, {"timezone": chosen, "timezone_chosen": True}, database=database
    )


MAX_EXTRA_NEW = 9999


def add_new_today(
    session: Session, *, database: Database, learner: Learner, count: int, now: datetime
) -> Learner:
    """Raise today's new-card limit by `count`, for the learner's current study day only."""
    more = min(max(count, 1), MAX_EXTRA_NEW)  # the routes refuse anything outside
    today = local_day(learner, now)
    already = learner.extra_new if learner.extra_new_day == today else 0
    return _store(
        session,
        learner,
        {"extra_new": min(already + more, MAX_EXTRA_NEW), "extra_new_day": today},
        database=database,
    )
