"""Request dependencies, as Annotated aliases the routes declare."""

import hmac
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Depends, Form, Header, Path, Query, Request
from itsdangerous import BadSignature
from sqlalchemy import inspect
from sqlmodel import Session

from app.accounts import members
from app.accounts.kept import KeptPages, kept_pages
from app.accounts.learners import get_learner
from app.config import Settings
from app.errors import Forbidden, NotSignedIn
from app.infra.db import Database
from app.infra.models import AuthSession, Learner
from app.study import Filters
from app.study.filters import FOLDER_MAX_LENGTH
from app.web.auth import SESSION_COOKIE, signer
from app.web.hosts import trusted_origin
from app.web.i18n import language

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


# Dependencies that do no I/O are `async def`: FastAPI runs a plain `def` dependency in the
# thread pool, and a hop there and back costs more than most of these requests' queries.


async def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_session(request: Request) -> AsyncIterator[Session]:
    # Opening a Session does no I/O (it connects on first use, inside the thread that runs the
    # route). Ending it hands the connection back to the pool: at most a commit of the route's
    # reads (a rollback when the route failed), a cost smaller than the thread hop it would
    # otherwise take.
    database = request.app.state.database
    with database.session() as session:
        yield session
        database.end_read(session)


async def get_database(request: Request) -> Database:
    """The app's one Database, which services write through (`Database.writing`)."""
    database: Database = request.app.state.database
    return database


def utc_now() -> datetime:
    """The real time: an app's clock unless it is given another (`app.state.clock`)."""
    return datetime.now(UTC)


async def get_now(request: Request) -> datetime:
    """The current time by the app's clock, which tests set to travel through study days.

    A clock in the app's state rather than a dependency override: while an app has any override,
    FastAPI builds every dependency of every request afresh.
    """
    now: datetime = request.app.state.clock()
    return now


# A row id in a path: ids are INTEGER columns (32 bits on PostgreSQL), so past that no row
# exists, and SQLite's driver would overflow past 64 bits; such a path is answered 404.
MAX_ROW_ID = 2**31 - 1
RowId = Annotated[int, Path(ge=0, le=MAX_ROW_ID)]

SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
SessionDep = Annotated[Session, Depends(get_session)]
DatabaseDep = Annotated[Database, Depends(get_database)]
NowDep = Annotated[datetime, Depends(get_now)]

# The client's key for a state change it may send again (the outbox retries until answered).
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        max_length=100,
        description="A repeat with the same key returns the first answer and records nothing.",
    ),
]


@dataclass(frozen=True)
class Identity:
    """Who is asking: the local learner, a signed-in browser, a script's token, or nobody."""

    learner: Learner | None
    via: str  # local | cookie | token | anonymous
    session: AuthSession | None = None
    token: str | None = None  # the cookie's session token, kept on password change
    kept: KeptPages | None = None  # how this device may keep the session's pages (static/sw.js)

    @property
    def csrf_token(self) -> str | None:
        return self.session.csrf_token if self.session else None


def identify(request: Request, session: Session, now: datetime) -> Identity:
    """Who sent `request`, looked up once per request on the request's own session."""
    cached: Identity | None = getattr(request.state, "identity", None)
    if cached is None:
        cached = _identify(request, session, request.app.state.settings, now)
        for row in (cached.learner, cached.session):
            if row is not None:
                if inspect(row).expired_attributes:
                    session.refresh(row)  # expired by a commit while identifying (token use)
                # Detached with its loaded values: the route's commits do not expire it.
                session.expunge(row)
        request.state.identity = cached
    return cached


def get_identity(request: Request, session: SessionDep, now: NowDep) -> Identity:
    return identify(request, session, now)


def _identify(request: Request, session: Session, settings: Settings, now: datetime) -> Identity:
    if not settings.team:
        # Local mode: all study state belongs to the one local learner.
        return Identity(get_learner(session, settings.learner_name, settings.timezone), "local")
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        learner = members.token_learner(
            session, header[7:].strip(), now, database=request.app.state.database
        )
        if learner is None:
            raise NotSignedIn("token_invalid")
        return Identity(learner, "token")
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        try:
            token = signer(settings).loads(cookie)
        except BadSignature:
            token = None
        found = members.session_learner(session, token, now) if isinstance(token, str) else None
        if found is not None:
            row, learner = found
            return Identity(learner, "cookie", row, token, kept_pages(row, learner, now))
    return Identity(None, "anonymous")


IdentityDep = Annotated[Identity, Depends(get_identity)]


def signed_in(identity: Identity) -> Learner:
    """The learner behind `identity`; NotSignedIn for nobody."""
    if identity.learner is None:
        raise NotSignedIn("not_signed_in")
    return identity.learner


async def get_current_learner(identity: IdentityDep) -> Learner:
    return signed_in(identity)


async def get_admin(identity: IdentityDep, settings: SettingsDep) -> Learner:
    learner = await get_current_learner(identity)
    # The local learner administers their own machine.
    if settings.team and not learner.is_admin:
        raise Forbidden("admin_only")
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
    check_csrf(request, identity, sent)


def check_csrf(request: Request, identity: Identity, sent: object) -> None:
    if request.method in SAFE_METHODS:
        return
    # Fetch metadata first: a browser that sends it says outright whether another site asked.
    if request.headers.get("sec-fetch-site") in ("cross-site", "same-site"):
        raise Forbidden("cross_site")
    # Browsers send Origin on every cross-origin POST; `null` is a sandboxed frame or a file,
    # which could otherwise sign a victim's browser into the attacker's account.
    origin = request.headers.get("origin")
    settings: Settings = request.app.state.settings
    if origin is not None and not trusted_origin(origin, request.headers.get("host"), settings):
        raise Forbidden("cross_site")
    if identity.via != "cookie":
        return  # browsers never send API tokens on their own; local mode has no session
    if not isinstance(sent, str) or not hmac.compare_digest(sent, identity.csrf_token or ""):
        raise Forbidden("csrf_token")


async def get_filters(
    folder: Annotated[str | None, Query(max_length=FOLDER_MAX_LENGTH)] = None,
    deck: Annotated[str | None, Query(max_length=200)] = None,
    section: Annotated[str | None, Query(max_length=500)] = None,
    tag: Annotated[str | None, Query(max_length=200)] = None,
    ahead: Annotated[int, Query(ge=0, le=365)] = 0,
) -> Filters:
    """The study or practice scope: `?folder=&deck=&section=&tag=`, and `ahead=` days ahead."""
    return Filters(
        deck=deck or None,
        section=section or None,
        tag=tag or None,
        folder=(folder or "").strip("/") or None,
        ahead=ahead,
    )


FiltersDep = Annotated[Filters, Depends(get_filters)]


async def get_scope_form(
    folder: Annotated[str, Form(max_length=FOLDER_MAX_LENGTH)] = "",
    deck: Annotated[str, Form(max_length=200)] = "",
    section: Annotated[str, Form(max_length=500)] = "",
    tag: Annotated[str, Form(max_length=200)] = "",
) -> Filters:
    """The scope a practice or mock interview form posts: a folder, deck, section, tag, or none."""
    return Filters(
        deck=deck or None,
        section=section or None,
        tag=tag or None,
        folder=folder.strip("/") or None,
    )


ScopeFormDep = Annotated[Filters, Depends(get_scope_form)]


async def get_language(request: Request) -> str:
    return language(request)


LangDep = Annotated[str, Depends(get_language)]


async def members_only(request: Request, identity: IdentityDep) -> None:
    """Router guard for members' routes: a signed-in learner, and no forged state change."""
    await get_current_learner(identity)
    await csrf_protect(request, identity)
