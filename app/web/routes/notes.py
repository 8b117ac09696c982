"""A note's read-only page (`/notes/<path>`): where a card comes from, its lines marked."""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from app.content.compile.markup import note_href
from app.content.compile.notepage import NotePage, editor_url, note_page
from app.errors import NotFound
from app.web.deps import SettingsDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)


def _by_name(path: str) -> bool:
    """Whether `path` names a note as a link does (`decks/roofline`): no extension, no tricks."""
    parts = path.split("/")
    return (
        bool(path)
        and not path.startswith("/")
        and "\\" not in path
        and "." not in parts[-1]
        and all(part not in ("", ".", "..") for part in parts)
    )


@router.get("/notes/{path:path}")
async def note(
    request: Request,
    path: str,
    settings: SettingsDep,
    line: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> Response:
    """The note at `path` in the notes folder; `line`: the card's, marked and edited at."""
    # Reading and rendering a file (KaTeX included) is blocking work: off the event loop.
    if _by_name(path):
        # A note's relative link to another by name (`[Roofline](roofline)`), as rendered here:
        # the page that finds a note by its name.
        return RedirectResponse(note_href(path.rsplit("/", 1)[-1]), status_code=303)
    page: NotePage | None = await run_in_threadpool(note_page, settings.content_dir, path)
    if page is None:
        raise NotFound("note_not_found")
    edit = None
    if settings.editor_url and not settings.team:
        at = line or (page.blocks[0].first if page.blocks else 1)
        edit = editor_url(settings.editor_url, root=settings.content_dir, page=page, line=at)
    return render(request, "note.html", {"page": page, "edit": edit, "line": line})
