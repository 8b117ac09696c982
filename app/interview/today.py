"""The learner's upcoming interviews with their readiness."""

from datetime import datetime

from sqlmodel import Session

from app.infra.models import Learner
from app.interview.interviews import upcoming
from app.interview.readiness import Readiness, readiness


def ahead(session: Session, *, learner: Learner, now: datetime) -> list[Readiness]:
    """Readiness for every interview from today on, soonest first."""
    return [
        readiness(session, learner=learner, interview=interview, now=now)
        for interview in upcoming(session, learner=learner, now=now)
    ]
