"""Jinja2 environment and the one helper routes use to render a page."""

from datetime import datetime
from typing import Any, Protocol
from urllib.parse import urlencode

from fastapi import Request
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context
from jinja2.runtime import Context
from starlette.responses import HTMLResponse

from app.accounts.kept import KeptPages
from app.config import resource_dir
from app.infra.models import Learner
from app.scheduling.cardstate import Mode, Queue, Rating, aware
from app.scheduling.schedule import format_interval
from app.scheduling.studyday import learner_zone
from app.study.marks import Flag
from app.web.assets import Assets
from app.web.i18n import language, translator, worded

assets = Assets(resource_dir("static"))
templates = Jinja2Templates(directory=str(resource_dir("templates")))
templates.env.globals["static_url"] = assets.url
templates.env.globals["urlencode"] = urlencode
templates.env.filters["interval"] = format_interval
# The names ratings, flags, queues and modes go by, one list of each: the enums for templates,
# and as the page's #qbank-names JSON for the scripts (static/names.js).
templates.env.globals.update(Rating=Rating, Flag=Flag, Queue=Queue, Mode=Mode)
templates.env.globals["names"] = {
    "ratings": [int(rating) for rating in Rating],
    "flags": [flag.value for flag in Flag],
    "queues": [queue.value for queue in Queue],
    "modes": [mode.value for mode in Mode],
}


@pass_context
def localtime(context: Context, moment: datetime | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """`moment` on the wall clock of the learner viewing the page (UTC for nobody)."""
    if moment is None:
        return ""
    user = context.get("user")
    local = aware(moment).astimezone(learner_zone(user)) if user else aware(moment)
    return local.strftime(fmt)


templates.env.filters["localtime"] = localtime


# Whose page this is, for the service worker (static/sw.js), which keeps a signed-in member's
# pages only for her session and as long as this says, and drops them all on "none".
KEPT_SESSION_HEADER = "Qbank-Session"


class Asker(Protocol):
    """What a page needs of app.web.deps.Identity (which reaches this module through errors)."""

    @property
    def via(self) -> str: ...
    @property
    def learner(self) -> Learner | None: ...
    @property
    def kept(self) -> KeptPages | None: ...


def kept_session(identity: Asker | None, *, team: bool) -> str | None:
    """The page's `Qbank-Session` value: "local", "none", "<id>; max-age=<s>", or None (unknown)."""
    if not team:
        return "local"
    if identity is None or identity.via == "token":
        return None  # a page that never asked who is there, or a script's
    if identity.kept is not None:
        return f"{identity.kept.id}; max-age={identity.kept.seconds}"
    return "none" if identity.learner is None else None


def render(
    request: Request, name: str, context: dict[str, Any], status_code: int = 200
) -> HTMLResponse:
    lang = language(request)
    identity = getattr(request.state, "identity", None)
    team = request.app.state.settings.team
    kept = kept_session(identity, team=team)
    base = {
        "lang": lang,
        "t": translator(lang),
        # A problem's values, passed as one mapping: they may be named anything (`key`, `self`).
        "worded": lambda key, values: worded(key, values, lang),
        "path": request.url.path,
        "team": team,
        "user": identity.learner if identity else None,
        "csrf_token": identity.csrf_token if identity else None,
        "kept_session": kept,
    }
    response = templates.TemplateResponse(
        request, name, {**base, **context}, status_code=status_code
    )
    if kept is not None:
        response.headers[KEPT_SESSION_HEADER] = kept
    return response
