"""The study service as a request dependency: one session, and one thread hop for the loop."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from sqlmodel import Session

from app.infra.models import Learner
from app.study.service import Study
from app.web.deps import LearnerDep, NowDep, SessionDep, check_csrf, identify, signed_in

T = TypeVar("T")


def study_for(request: Request, session: Session, learner: Learner, now: datetime) -> Study:
    """The study loop of `learner` on the request's session, with the app's database and pins."""
    state = request.app.state
    return Study(state.database, session, learner, now, state.pins)


@dataclass(frozen=True)
class StudyCall:
    """A study request not yet identified: `run` identifies it and does its work in one hop.

    The routes that take it are outside the members' guard, whose identity lookup would be a
    thread hop of its own: `run` makes the same checks (signed in, no forged change) first.
    """

    request: Request
    session: Session
    now: datetime

    def open(self) -> Study:
        identity = identify(self.request, self.session, self.now)
        learner = signed_in(identity)
        check_csrf(self.request, identity, self.request.headers.get("x-csrf-token"))
        return study_for(self.request, self.session, learner, self.now)

    async def run(self, work: Callable[[Study], T]) -> T:
        return await run_in_threadpool(lambda: work(self.open()))


async def get_study_call(request: Request, session: SessionDep, now: NowDep) -> StudyCall:
    return StudyCall(request, session, now)


async def get_study(
    request: Request, session: SessionDep, learner: LearnerDep, now: NowDep
) -> Study:
    return study_for(request, session, learner, now)


StudyCallDep = Annotated[StudyCall, Depends(get_study_call)]
StudyDep = Annotated[Study, Depends(get_study)]
