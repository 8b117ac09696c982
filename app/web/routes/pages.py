"""Browsing pages: home, decks, cards, topics, search and language (settings: routes/settings)."""

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.errors import NotFound
from app.interview.today import ahead
from app.search.query import BadQuery, deck_choices, printable
from app.search.query import search as run_search
from app.study import card_state, catalog, counts, folders
from app.study.cardview import card_view
from app.study.marks import get_mark
from app.web.deps import FiltersDep, LearnerDep, NowDep, SessionDep
from app.web.i18n import COOKIE, LANGUAGES, language, say
from app.web.redirects import back
from app.web.templating import render

router = APIRouter(include_in_schema=False)
# Needs no account in team mode: the sign-in page offers the language switch too.
public = APIRouter(include_in_schema=False)


PageDep = Annotated[int, Query(ge=1, le=1_000_000)]


@router.get("/")
def home(
    request: Request,
    session: SessionDep,
    learner: LearnerDep,
    now: NowDep,
    filters: FiltersDep,
    page: PageDep = 1,
) -> Response:
    listing = folders.folder_page(session, learner=learner, now=now, folder="", page=page)
    today = counts(session, learner=learner, now=now, filters=filters)
    tags = folders.tag_counts(session)
    interviews = ahead(session, learner=learner, now=now)
    context = {"listing": listing, "today": today, "tags": tags, "ahead": interviews}
    return render(request, "home.html", context | {"zone_offer": not learner.timezone_chosen})


@router.get("/folders/{folder:path}")
def folder(
    request: Request,
    folder: str,
    session: SessionDep,
    learner: LearnerDep,
    now: NowDep,
    page: PageDep = 1,
) -> Response:
    """A folder of notes a page at a time: its sub-folders with their counts, then its decks."""
    listing = folders.folder_page(session, learner=learner, now=now, folder=folder, page=page)
    if not listing.found:
        raise NotFound("folder_not_found", folder=folder)
    return render(request, "folder.html", {"listing": listing})


@router.get("/decks/{slug}")
def deck(
    request: Request, slug: str, session: SessionDep, learner: LearnerDep, now: NowDep
) -> Response:
    found = catalog.get_deck(session, slug)
    if found is None:
        raise NotFound("deck_not_found", deck=slug)
    page = catalog.deck_page(session, deck=found, learner=learner, now=now)
    return render(request, "deck.html", {"page": page, "deck": found})


@router.get("/cards/{card_id}")
def card(
    request: Request,
    card_id: str,
    session: SessionDep,
    learner: LearnerDep,
    now: NowDep,
    msg: Annotated[str | None, Query(max_length=40)] = None,
) -> Response:
    view = card_view(session, card_id)
    if view is None:
        raise NotFound("card_not_found", card=card_id)
    state = card_state(session, learner=learner, card_id=card_id)
    mark = get_mark(session, learner=learner, card_id=card_id)
    context = {"card": view, "state": state, "mark": mark, "now": now, "message": msg}
    return render(request, "card.html", context)


TOPICS_PER_PAGE = 100


@router.get("/topics")
def topic_index(request: Request, session: SessionDep, page: PageDep = 1) -> Response:
    pages = max(-(-catalog.topic_count(session) // TOPICS_PER_PAGE), 1)
    page = min(page, pages)
    shown = catalog.topics(session, limit=TOPICS_PER_PAGE, offset=(page - 1) * TOPICS_PER_PAGE)
    return render(request, "topics.html", {"topics": shown, "page": page, "pages": pages})


@router.get("/topics/go/{title:path}")
def topic_by_title(
    title: str, session: SessionDep, h: Annotated[str, Query(max_length=500)] = ""
) -> Response:
    """A link to a note by name (`[[note#heading]]`): its page or card, else a search."""
    url = catalog.note_url(session, title, h)
    return RedirectResponse(url or f"/search?{_q(title)}", status_code=303)


@router.get("/topics/{slug}")
def topic(request: Request, slug: str, session: SessionDep) -> Response:
    found = catalog.get_topic(session, slug)
    if found is None:
        raise NotFound("topic_not_found", topic=slug)
    cards = catalog.topic_cards(session, slug)
    return render(request, "topic.html", {"topic": found, "cards": cards})


SEARCH_PAGE = 50


@router.get("/search")
def search(
    request: Request,
    session: SessionDep,
    q: Annotated[str, Query(max_length=200)] = "",
    kind: Annotated[Literal["", "card", "topic"], Query()] = "",
    deck: Annotated[str, Query(max_length=200)] = "",
    page: PageDep = 1,
) -> Response:
    try:
        result = run_search(
            session,
            q,
            kind=kind or None,
            deck=deck or None,
            limit=SEARCH_PAGE,
            offset=(page - 1) * SEARCH_PAGE,
        )
    except BadQuery as exc:
        context: dict[str, object] = {"q": printable(q), "kind": kind, "deck": printable(deck)}
        context |= {"error": say(exc, language(request)), "decks": deck_choices(session, [])}
        return render(request, "search.html", context, status_code=exc.status)
    found: dict[str, object] = {"q": q, "kind": kind, "deck": deck, "result": result}
    pages = max(-(-result.total // SEARCH_PAGE), 1)
    context = {**found, "hits": result.hits, "page": page, "pages": pages}
    context["decks"] = deck_choices(session, result.hits, deck)
    return render(request, "search.html", context)


@public.get("/lang/{code}")
def switch_language(request: Request, code: str) -> Response:
    response = RedirectResponse(back(request), status_code=303)
    if code in LANGUAGES:
        response.set_cookie(COOKIE, code, max_age=365 * 86400, samesite="lax", httponly=True)
    return response


def _q(text: str) -> str:
    from urllib.parse import urlencode

    return urlencode({"q": text})
