"""Request dependencies, as Annotated aliases the routes declare."""

import hmac
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, TypeVar
from urllib.parse import urlparse

from fastapi import Depends, Request
from fastapi.exceptions import RequestValidationError
from itsdangerous import BadSignature
from pydantic import BaseModel, ValidationError
from sqlalchemy import inspect
from sqlmodel import Session

from app import accounts
from app.config import Settings
from app.models import AuthSession, Learner
from app.study import Filters, get_learner
from app.web.auth import SESSION_COOKIE, Forbidden, NotSignedIn, signer
from app.web.i18n import language

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


# Dependencies that do no I/O are `async def`: FastAPI runs a plain `def` dependency in the
# thread pool, and a hop there and back costs more than most of these requests' queries.


async def get_settings_dep(request: Request) -> Settings:
    return request.app.state.settings


async def get_session(request: Request) -> AsyncIterator[Session]:
    # Opening a Session does no I/O (it connects on first use, inside the thread that runs the
    # route). Closing it hands the connection back to the pool: at most a rollback when the
    # route left a transaction open, a cost smaller than the thread hop it would otherwise take.
    with Session(request.app.state.engine) as session:
        yield session


async def get_now() -> datetime:
    """The current time; tests override this to travel through study days."""
    return datetime.now(UTC)


SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
SessionDep = Annotated[Session, Depends(get_session)]
NowDep = Annotated[datetime, Depends(get_now)]


@dataclass(frozen=True)
class Identity:
    """Who is asking: the local learner, a signed-in browser, a script's token, or nobody."""

    learner: Learner | None
    via: str  # local | cookie | token | anonymous
    session: AuthSession | None = None
    token: str | None = None  # the cookie's session token, kept on password change

    @property
    def csrf_token(self) -> str | None:
        return self.session.csrf_token if self.session else None


def get_identity(
    request: Request, session: SessionDep, settings: SettingsDep, now: NowDep
) -> Identity:
    cached = getattr(request.state, "identity", None)
    if cached is None:
        cached = request.state.identity = _identify(request, session, settings, now)
        # Hand the connection back to the pool before the route runs in another thread hop:
        # a request holding a connection while it waits for a thread, in a burst larger than
        # the pool, could leave every thread waiting for a connection. Closing detaches the
        # loaded rows without expiring them; the route's first query takes a connection again.
        for row in (cached.learner, cached.session):
            if row is not None and inspect(row).expired_attributes:
                session.refresh(row)  # expired by a commit while identifying (token last used)
        session.close()
    return cached


def _identify(
    request: Request, session: Session, settings: Settings, now: datetime, *, touch: bool = True
) -> Identity:
    if not settings.team:
        # Local mode: all study state belongs to the one local learner.
        return Identity(get_learner(session, settings.learner_name, settings.timezone), "local")
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        learner = accounts.token_learner(session, header[7:].strip(), now, touch=touch)
        if learner is None:
            raise NotSignedIn("invalid or revoked API token")
        return Identity(learner, "token")
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        try:
            token = signer(settings).loads(cookie)
        except BadSignature:
            token = None
        found = accounts.session_learner(session, token, now) if isinstance(token, str) else None
        if found is not None:
            return Identity(found[1], "cookie", found[0], token)
    return Identity(None, "anonymous")


IdentityDep = Annotated[Identity, Depends(get_identity)]


async def get_current_learner(identity: IdentityDep) -> Learner:
    if identity.learner is None:
        raise NotSignedIn("sign in first")
    return identity.learner


async def get_admin(identity: IdentityDep, settings: SettingsDep) -> Learner:
    learner = await get_current_learner(identity)
    # The local learner administers their own machine.
    if settings.team and not learner.is_admin:
        raise Forbidden("this page is for administrators")
    return learner


LearnerDep = Annotated[Learner, Depends(get_current_learner)]
AdminDep = Annotated[Learner, Depends(get_admin)]


async def csrf_protect(request: Request, identity: IdentityDep) -> None:
    """Refuse state-changing requests that a third-party page could have forged."""
    if request.method in SAFE_METHODS:
        return
    sent = request.headers.get("x-csrf-token")
    content_type = request.headers.get("content-type", "")
    if (
        sent is None
        and identity.via == "cookie"
        and content_type.startswith(("application/x-www-form-urlencoded", "multipart/"))
    ):
        sent = (await request.form()).get("csrf_token")  # type: ignore[assignment]
    _check_csrf(request, identity, sent)


def _check_csrf(request: Request, identity: Identity, sent: object) -> None:
    if request.method in SAFE_METHODS:
        return
    origin = request.headers.get("origin")
    if origin and origin != "null" and urlparse(origin).netloc != request.headers.get("host"):
        raise Forbidden("cross-site request refused")
    if identity.via != "cookie":
        return  # browsers never send API tokens on their own; local mode has no session
    if not isinstance(sent, str) or not hmac.compare_digest(sent, identity.csrf_token or ""):
        raise Forbidden("missing or wrong CSRF token; reload the page and try again")


# The study filters' query parameters and their longest accepted values.
FILTER_LIMITS = {"deck": 200, "section": 500, "tag": 200}
# As OpenAPI parameters, for routes that document them (the study API).
FILTER_PARAMETERS = [
    {"name": name, "in": "query", "required": False, "schema": {"type": "string", "maxLength": n}}
    for name, n in FILTER_LIMITS.items()
]


async def get_filters(request: Request) -> Filters:
    """`?deck=&section=&tag=`, refused with FastAPI's 422 when one is too long.

    Read from the query string here rather than declared as three Query parameters, whose
    validation cost a tenth of a study request.
    """
    values: dict[str, str | None] = {}
    for name, limit in FILTER_LIMITS.items():
        value = request.query_params.get(name)
        if value is not None and len(value) > limit:
            raise RequestValidationError(
                [
                    {
                        "type": "string_too_long",
                        "loc": ("query", name),
                        "msg": f"String should have at most {limit} characters",
                        "input": value,
                        "ctx": {"max_length": limit},
                    }
                ]
            )
        values[name] = value or None
    return Filters(**values)


M = TypeVar("M", bound=BaseModel)


async def json_body(request: Request, model: type[M]) -> M:
    """The request's JSON body as `model`, refused with FastAPI's 422 as a body parameter is.

    For routes that document their body with `openapi_extra` (see `body_schema`) instead of
    declaring it: FastAPI's own parsing and validation of it cost more than the model's.
    """
    try:
        return model.model_validate_json(await request.body())
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False)
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in errors]) from None


def body_schema(model: type[BaseModel]) -> dict[str, object]:
    """OpenAPI for a required JSON request body of `model` (see `json_body`)."""
    schema = {"schema": model.model_json_schema()}
    return {"requestBody": {"required": True, "content": {"application/json": schema}}}


FiltersDep = Annotated[Filters, Depends(get_filters)]


async def get_language(request: Request) -> str:
    return language(request)


LangDep = Annotated[str, Depends(get_language)]


async def require_learner(identity: IdentityDep) -> None:
    """Router guard: in team mode every page and API call needs a signed-in learner."""
    await get_current_learner(identity)


async def members_only(request: Request, identity: IdentityDep) -> None:
    """Router guard for members' routes: a signed-in learner, and no forged state change.

    One dependency rather than two: FastAPI's cost per dependency is a fair share of a study
    request's.
    """
    await require_learner(identity)
    await csrf_protect(request, identity)


def authorize_member(
    request: Request, session: Session, now: datetime, *, read_only: bool = False
) -> Learner:
    """`members_only` for a route that does its own database work (app.web.threads).

    The caller is identified on the connection the route's own queries then use, instead of
    in a dependency's hop of its own: a study request's share of FastAPI's dependency solving
    and thread hops was larger than its queries'. For JSON routes only: the CSRF token of a
    cookie session comes in its header, never in a form. `read_only`: do not record the API
    token's use, so that the request writes nothing (see app.web.threads.run_read).
    """
    settings = request.app.state.settings
    identity = _identify(request, session, settings, now, touch=not read_only)
    request.state.identity = identity
    if identity.learner is None:
        raise NotSignedIn("sign in first")
    _check_csrf(request, identity, request.headers.get("x-csrf-token"))
    return identity.learner
