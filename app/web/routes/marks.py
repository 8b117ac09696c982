"""Card actions (suspend, bury, flag, leech) as JSON endpoints and as plain form posts."""

from datetime import datetime
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field
from starlette.responses import Response

from app.errors import NotFound
from app.scheduling.cardstate import Rating
from app.study import marks
from app.study.browse import MarkKind, marked_cards
from app.study.cardview import card_view
from app.study.filters import Filters
from app.study.marks import Flag, Mark
from app.study.service import Acted, CardAction, Study, UndoAction
from app.web.deps import FiltersDep, LangDep, LearnerDep, NowDep, SessionDep
from app.web.redirects import safe_local_path
from app.web.routes.api import ExcludeQuery
from app.web.schemas import CountsOut, NextOut, counts_out, next_out
from app.web.study_deps import StudyDep
from app.web.templating import render

api = APIRouter(prefix="/api", tags=["card actions"])
router = APIRouter(include_in_schema=False)

NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No such card"}}


class MarkOut(BaseModel):
    card_id: str
    suspended: bool = Field(description="Out of study and practice until unsuspended.")
    buried: bool = Field(description="Out of study until `buried_until`.")
    buried_until: datetime | None = Field(
        description="The start of the learner's next study day, ISO with offset; null if never."
    )
    flag: int = Field(ge=0, le=7, description="0: no flag; 1-7: red, orange, green, blue, …")
    flag_colour: Flag | None
    leech: bool = Field(description="Lapsed as often as the learner's leech threshold.")


class UndoActionOut(BaseModel):
    """The request that puts the card's marks back as they were before this action."""

    method: Literal["POST"] = "POST"
    path: str
    body: dict[str, int | bool] | None = None


class ActionOut(MarkOut):
    changed: bool = Field(description="False when the card already had this mark (a repeat).")
    undo: UndoActionOut
    counts: CountsOut
    next: NextOut | None = Field(description="The card to study next in the scope; null if none.")


class FlagIn(BaseModel):
    flag: int = Field(ge=0, le=7, description="0 clears the flag; 1-7 as in Anki.")


class LeechIn(BaseModel):
    suspended: bool = Field(True, description="Whether the leech is also suspended.")


def mark_out(mark: Mark, now: datetime) -> MarkOut:
    return MarkOut(
        card_id=mark.card_id,
        suspended=mark.suspended,
        buried=mark.buried(now),
        buried_until=mark.buried_until,
        flag=mark.flag,
        flag_colour=Flag.of(mark.flag),
        leech=mark.leech,
    )


def undo_out(undo: UndoAction) -> UndoActionOut:
    return UndoActionOut(path=f"/api/cards/{undo.card_id}/{undo.action}", body=undo.body)


def _api_action(action: CardAction, summary: str) -> None:
    def endpoint(
        card_id: str,
        study: StudyDep,
        filters: FiltersDep,
        lang: LangDep,
        exclude: ExcludeQuery = [],  # noqa: B006 (FastAPI copies defaults)
    ) -> ActionOut:
        return _action_out(study, filters, lang, exclude, study.act(card_id, action))

    endpoint.__doc__ = summary
    endpoint.__name__ = f"{action}_card"
    api.post(f"/cards/{{card_id}}/{action}", responses=NOT_FOUND)(endpoint)


def _action_out(
    study: Study, filters: Filters, lang: str, exclude: list[str], acted: Acted
) -> ActionOut:
    found = study.next(filters, exclude)
    after = mark_out(acted.after, study.now)
    return ActionOut(
        **after.model_dump(),
        changed=mark_out(acted.before, study.now) != after,
        undo=undo_out(acted.undo),
        counts=counts_out(found.counts),
        next=next_out(found, lang),
    )


_api_action(CardAction.SUSPEND, "Suspend the card: out of study and practice until unsuspended.")
_api_action(CardAction.UNSUSPEND, "Let a suspended card be studied again.")
_api_action(CardAction.BURY, "Bury the card until the learner's next study day.")
_api_action(CardAction.UNBURY, "Bring a buried card back today.")
_api_action(
    CardAction.UNLEECH, "Clear the card's leech mark (after rewriting it) and unsuspend it."
)


@api.post("/cards/{card_id}/flag", responses=NOT_FOUND)
def flag_card(
    card_id: str,
    body: FlagIn,
    study: StudyDep,
    filters: FiltersDep,
    lang: LangDep,
    exclude: ExcludeQuery = [],  # noqa: B006
) -> ActionOut:
    """Flag the card with a colour (1-7), or clear its flag (0)."""
    acted = study.act(card_id, CardAction.FLAG, flag=body.flag)
    return _action_out(study, filters, lang, exclude, acted)


@api.post("/cards/{card_id}/leech", responses=NOT_FOUND)
def leech_card(
    card_id: str,
    body: LeechIn,
    study: StudyDep,
    filters: FiltersDep,
    lang: LangDep,
    exclude: ExcludeQuery = [],  # noqa: B006
) -> ActionOut:
    """Mark the card a leech again, suspended or not: the undo of `unleech`."""
    acted = study.act(card_id, CardAction.LEECH, suspended=body.suspended)
    return _action_out(study, filters, lang, exclude, acted)


@api.get("/cards/{card_id}/marks", responses=NOT_FOUND)
def card_marks(card_id: str, session: SessionDep, learner: LearnerDep, now: NowDep) -> MarkOut:
    """The learner's own marks on the card."""
    if card_view(session, card_id) is None:
        raise NotFound("card_not_found", card=card_id)
    return mark_out(marks.get_mark(session, learner=learner, card_id=card_id), now)


class RatingOut(BaseModel):
    at: datetime
    rating: Rating


class MarkedCardOut(MarkOut):
    question: str
    deck: str
    source: str = Field(description="Where the card is written: decks/x.md:123.")
    lapses: int
    reps: int
    due: datetime | None
    history: list[RatingOut] = Field(
        description="Leeches only: the learner's live study ratings of the card, oldest first."
    )


@api.get("/marks/{kind}")
def marked(
    kind: MarkKind,
    session: SessionDep,
    learner: LearnerDep,
    now: NowDep,
    flag: Annotated[int | None, Query(ge=1, le=7)] = None,
) -> list[MarkedCardOut]:
    """The learner's suspended, buried, flagged (`flag`: one colour) or leech cards."""
    return [
        MarkedCardOut(
            **mark_out(c.mark, now).model_dump(),
            question=c.question,
            deck=c.deck_slug,
            source=c.source,
            lapses=c.lapses,
            reps=c.reps,
            due=c.due,
            history=[RatingOut(at=r.at, rating=r.rating) for r in c.history],
        )
        for c in marked_cards(session, learner=learner, now=now, kind=kind, flag=flag)
    ]


# Form posts: the same actions without JavaScript, back to the page they came from.


def _back(target: str | None, card_id: str, message: str) -> str:
    """`target` (a path on this site, else the card's page) with `msg` set to `message`."""
    path, _, query = safe_local_path(target, f"/cards/{card_id}").partition("?")
    query = "&".join(p for p in query.split("&") if p and not p.startswith("msg="))
    return f"{path}?{query + '&' if query else ''}{urlencode({'msg': message})}"


NextField = Annotated[str | None, Form(alias="next", max_length=2000)]


@router.post("/cards/{card_id}/{action}")
def card_action(
    card_id: str,
    action: Literal["suspend", "unsuspend", "bury", "unbury", "unleech", "flag"],
    study: StudyDep,
    flag: Annotated[int, Form(ge=0, le=7)] = 0,
    target: NextField = None,
) -> Response:
    study.act(card_id, CardAction(action), flag=flag)
    message = ("flagged" if flag else "unflagged") if action == "flag" else action
    return RedirectResponse(_back(target, card_id, message), status_code=303)


@router.get("/marks/{kind}")
def marked_page(
    request: Request,
    kind: MarkKind,
    session: SessionDep,
    learner: LearnerDep,
    now: NowDep,
    flag: Annotated[int | None, Query(ge=1, le=7)] = None,
    msg: str | None = None,
) -> Response:
    cards = marked_cards(session, learner=learner, now=now, kind=kind, flag=flag)
    context = {
        "kind": kind.value,
        "kinds": [k.value for k in MarkKind],
        "cards": cards,
        "flag": flag,
        "message": msg,
        "now": now,
    }
    return render(request, "marks.html", context)
