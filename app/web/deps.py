"""Request dependencies, as Annotated aliases the routes declare."""

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Depends, Query, Request
from sqlmodel import Session

from app.config import Settings
from app.models import Learner
from app.study import Filters, get_learner
from app.web.i18n import language


def get_settings_dep(request: Request) -> Settings:
    return request.app.state.settings


def get_session(request: Request) -> Iterator[Session]:
    with Session(request.app.state.engine) as session:
        yield session


def get_now() -> datetime:
    """The current time; tests override this to travel through study days."""
    return datetime.now(UTC)


SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
SessionDep = Annotated[Session, Depends(get_session)]
NowDep = Annotated[datetime, Depends(get_now)]


def get_current_learner(session: SessionDep, settings: SettingsDep) -> Learner:
    # Until accounts exist, all study state belongs to the one local learner.
    return get_learner(session, settings.learner_name, settings.timezone)


def get_filters(
    deck: Annotated[str | None, Query(max_length=200)] = None,
    section: Annotated[str | None, Query(max_length=500)] = None,
    tag: Annotated[str | None, Query(max_length=200)] = None,
) -> Filters:
    return Filters(deck=deck or None, section=section or None, tag=tag or None)


LearnerDep = Annotated[Learner, Depends(get_current_learner)]
FiltersDep = Annotated[Filters, Depends(get_filters)]
LangDep = Annotated[str, Depends(language)]
