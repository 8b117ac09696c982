"""The study session pages; every action is a plain form post, enhanced by a little JS."""

import time
import uuid
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.accounts.learners import new_limit
from app.errors import Conflict, NotFound
from app.scheduling.cardstate import Rating
from app.study import (
    Filters,
    learner_zone,
    next_due,
    reviewed_today,
)
from app.study.browse import failed_today
from app.study.cardview import CardView, FollowupView, LinkView
from app.study.marks import Mark
from app.study.recap import today_recap
from app.web.deps import FiltersDep, LangDep, LearnerDep, NowDep, SessionDep
from app.web.i18n import translator
from app.web.observe import REVIEWS
from app.web.schemas import counts_out, next_out
from app.web.scope import scope_choices
from app.web.study_deps import StudyDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)

# Interface strings the study client (static/study-paint.js) paints its status and notices with;
# a card's own labels come with the page's card template.
CLIENT_STRINGS = (
    "queue.new",
    "queue.learning",
    "queue.review",
    "queue.relearning",
    "study.saving",
    "study.saved",
    "study.offline",
    "study.retrying",
    "study.signed_out",
    "study.rejected",
    "study.gone",
    "study.undone",
    "study.action_undone",
    "study.undo_failed",
    "study.expired",
    "study.taken_along",
    "study.taken_along_shared",
    "study.nothing_to_undo",
    "study.waiting_for_cards",
    "study.suspend",
    "study.bury",
    "study.leech",
    "study.action_failed",
)


# The study page's card template: every optional part present, so that static/study-paint.js
# finds each one to fill in or leave out; three links, one of each kind.
CARD_SLOTS = CardView(
    id="",
    deck_slug="",
    deck_title="",
    section="",
    question="",
    question_html="",
    answer_html="",
    followups_html=" ",
    pitfalls_html=" ",
    tags=(),
    links=(
        LinkView(title="", url="https://", external=True),
        LinkView(title="", url="/topics/", external=False),
        LinkView(title="", url=None, external=False),
    ),
    retired=False,
    followups=(FollowupView(id="", question_html="", answer_html=""),),
    source_path="-",
)
SLOT_MARK = Mark(card_id="", leech=True)
SHOWN_FIELDS = {"id", "queue", "due", "version", "intervals", "flag", "leech", "kind"}

# The notices a redirect to /study may name (`?msg=`); any other value shows nothing.
MESSAGES = frozenset({"conflict", "nothing_to_undo", "undone"})


def _study_url(filters: Filters, **extra: str) -> str:
    params = {**filters.as_params(), **extra}
    return "/study" + (f"?{urlencode(params)}" if params else "")


@router.get("/study")
def study(
    request: Request,
    study: StudyDep,
    session: SessionDep,
    learner: LearnerDep,
    now: NowDep,
    filters: FiltersDep,
    lang: LangDep,
    reveal: bool = False,
    card: str | None = None,
    msg: str | None = None,
) -> Response:
    found = study.next(filters, pinned=card)
    current, today = found.card, found.counts
    done = reviewed_today(session, learner=learner, now=now)
    context = {
        "filters": filters,
        "today": today,
        "done": done,
        "message": msg if msg in MESSAGES else None,
        "study_url": _study_url,
    }
    if current is None:
        due = next_due(session, learner=learner, filters=filters, now=now)
        # Shown in the learner's own time zone, which is also where their day rolls over.
        context["next_due"] = due.astimezone(learner_zone(learner)) if due else None
        context["zone"] = learner.timezone
        context["recap"] = today_recap(session, learner=learner, now=now)
        context["failed"] = failed_today(session, learner=learner, now=now)
        context["extra_today"] = new_limit(learner, now) - learner.new_per_day
        # The scope to practise next, this one chosen.
        context |= scope_choices(session, learner=learner, now=now, filters=filters)
        return render(request, "done.html", context)
    t = translator(lang)
    shown = next_out(found, lang)
    client = {
        # The card's markup is on the page already: only what the script needs besides.
        "current": shown.model_dump(mode="json", include=SHOWN_FIELDS) if shown else None,
        "counts": counts_out(today).model_dump(),
        "done": done,
        "scope": filters.as_params(),
        "learner": str(learner.id),
        "strings": {key: t(key) for key in CLIENT_STRINGS},
    }
    context |= {
        "client": client,
        "current": current,
        "mark": current.mark,
        "card_slots": CARD_SLOTS,
        "slot_mark": SLOT_MARK,
        "now": now,
        "reveal": reveal,
        "shown_at": int(time.time() * 1000),
        # A form posted twice (a retry, the back button) records one rating.
        "idempotency_key": uuid.uuid4().hex,
    }
    return render(request, "study.html", context)


@router.post("/study/review")
def review(
    study: StudyDep,
    filters: FiltersDep,
    card_id: Annotated[str, Form(max_length=200)],
    rating: Annotated[Rating, Form()],
    version: Annotated[int | None, Form()] = None,
    shown_at: Annotated[int | None, Form()] = None,
    duration_ms: Annotated[int | None, Form(ge=0, le=86_400_000)] = None,
    idempotency_key: Annotated[str | None, Form(max_length=100)] = None,
) -> Response:
    if duration_ms is None and shown_at is not None:
        duration_ms = min(max(int(time.time() * 1000) - shown_at, 0), 86_400_000)
    try:
        rated = study.rate(card_id, rating, version, idempotency_key, duration_ms=duration_ms)
    except Conflict:
        return RedirectResponse(_study_url(filters, msg="conflict"), status_code=303)
    if not rated.review.replayed:
        REVIEWS.labels(str(rating)).inc()
    return RedirectResponse(_study_url(filters), status_code=303)


@router.post("/study/undo")
def undo(study: StudyDep, filters: FiltersDep) -> Response:
    try:
        log = study.undo()
    except NotFound:
        return RedirectResponse(_study_url(filters, msg="nothing_to_undo"), status_code=303)
    except Conflict:
        return RedirectResponse(_study_url(filters, msg="conflict"), status_code=303)
    return RedirectResponse(_study_url(filters, card=log.card_id, msg="undone"), status_code=303)
