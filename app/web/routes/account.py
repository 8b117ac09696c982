"""Signing in and out, invites, and a learner's own account: password and API tokens."""

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.accounts import members
from app.errors import AppError, Invalid, NotSignedIn
from app.web.auth import clear_session_cookie, set_session_cookie
from app.web.deps import (
    DatabaseDep,
    IdentityDep,
    LearnerDep,
    NowDep,
    RowId,
    SessionDep,
    SettingsDep,
)
from app.web.i18n import language, say
from app.web.redirects import safe_local_path
from app.web.templating import render

router = APIRouter(include_in_schema=False)

Text = Annotated[str, Form(max_length=200)]


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _signed_in(request: Request, settings: SettingsDep, token: str, target: str) -> Response:
    response = RedirectResponse(safe_local_path(target), status_code=303)
    set_session_cookie(response, request, settings, token)
    return response


@router.get("/login")
def login_page(
    request: Request, settings: SettingsDep, identity: IdentityDep, next: str = "/"
) -> Response:
    # Asking who is there lets the page tell the service worker that nobody is (Qbank-Session).
    if not settings.team:
        return RedirectResponse("/", status_code=303)
    return render(request, "login.html", {"next": safe_local_path(next), "error": None})


@router.post("/login")
def login(
    request: Request,
    session: SessionDep,
    database: DatabaseDep,
    settings: SettingsDep,
    now: NowDep,
    name: Text,
    password: Text,
    next: Annotated[str, Form(max_length=2000)] = "/",
) -> Response:
    if not settings.team:
        return RedirectResponse("/", status_code=303)
    try:
        learner = members.authenticate(
            session,
            name=name,
            password=password,
            client=_client(request),
            now=now,
            database=database,
        )
    except AppError as exc:
        context = {
            "next": safe_local_path(next),
            "error": say(exc, language(request)),
            "name": name,
        }
        return render(request, "login.html", context, status_code=exc.status)
    signed = members.start_session(
        session, learner=learner, now=now, days=settings.session_days, database=database
    )
    return _signed_in(request, settings, signed.token, next)


@router.post("/logout")
def logout(session: SessionDep, database: DatabaseDep, identity: IdentityDep) -> Response:
    if identity.token:
        members.end_session(session, identity.token, database=database)
    response = RedirectResponse("/login", status_code=303)
    clear_session_cookie(response)
    # A shared device keeps nothing of the member who leaves: the pages the service worker kept
    # (static/sw.js), the cards taken along and the outbox (whose entries the next member's
    # session would send as theirs). The browser clears them; the next page installs the
    # worker and its app shell again.
    response.headers["Clear-Site-Data"] = '"cache", "storage"'
    return response


@router.get("/invite/{token}")
def invite_page(request: Request, token: str, session: SessionDep, now: NowDep) -> Response:
    members.check_invite(session, token, now)
    return render(request, "signup.html", {"action": f"/invite/{token}", "error": None})


@router.post("/invite/{token}")
def accept_invite(
    request: Request,
    token: str,
    session: SessionDep,
    database: DatabaseDep,
    settings: SettingsDep,
    now: NowDep,
    name: Text,
    password: Text,
) -> Response:
    try:
        learner = members.redeem_invite(
            session, token=token, name=name, password=password, now=now, database=database
        )
    except AppError as exc:
        context = {"action": f"/invite/{token}", "error": say(exc, language(request)), "name": name}
        return render(request, "signup.html", context, status_code=exc.status)
    signed = members.start_session(
        session, learner=learner, now=now, days=settings.session_days, database=database
    )
    return _signed_in(request, settings, signed.token, "/")


@router.get("/signup")
def signup_page(request: Request, settings: SettingsDep) -> Response:
    if not (settings.team and settings.open_signup):
        raise Invalid("signup_invite_only")
    return render(request, "signup.html", {"action": "/signup", "error": None})


@router.post("/signup")
def signup(
    request: Request,
    session: SessionDep,
    database: DatabaseDep,
    settings: SettingsDep,
    now: NowDep,
    name: Text,
    password: Text,
) -> Response:
    if not (settings.team and settings.open_signup):
        raise Invalid("signup_invite_only")
    try:
        learner = members.create_user(session, name=name, password=password, database=database)
    except AppError as exc:
        context = {"action": "/signup", "error": say(exc, language(request)), "name": name}
        return render(request, "signup.html", context, status_code=exc.status)
    signed = members.start_session(
        session, learner=learner, now=now, days=settings.session_days, database=database
    )
    return _signed_in(request, settings, signed.token, "/")


@router.get("/account")
def account_page(
    request: Request,
    session: SessionDep,
    learner: LearnerDep,
    settings: SettingsDep,
    done: str | None = None,
) -> Response:
    if not settings.team:
        return RedirectResponse("/settings", status_code=303)
    tokens = members.api_tokens(session, learner=learner)
    context = {"tokens": tokens, "done": done, "error": None, "new_token": None}
    return render(request, "account.html", context)


@router.post("/account/password")
def change_password(
    request: Request,
    session: SessionDep,
    database: DatabaseDep,
    identity: IdentityDep,
    old_password: Text,
    new_password: Text,
) -> Response:
    if identity.learner is None or identity.via != "cookie":
        raise NotSignedIn("not_signed_in")
    try:
        members.change_password(
            session,
            learner=identity.learner,
            old=old_password,
            new=new_password,
            current_token=identity.token,
            database=database,
        )
    except AppError as exc:
        tokens = members.api_tokens(session, learner=identity.learner)
        error = say(exc, language(request))
        context = {"tokens": tokens, "done": None, "error": error, "new_token": None}
        return render(request, "account.html", context, status_code=exc.status)
    return RedirectResponse("/account?done=password", status_code=303)


@router.post("/account/tokens")
def create_token(
    request: Request,
    session: SessionDep,
    database: DatabaseDep,
    learner: LearnerDep,
    now: NowDep,
    name: Text,
) -> Response:
    new_token = members.create_api_token(
        session, learner=learner, name=name, now=now, database=database
    )
    tokens = members.api_tokens(session, learner=learner)
    context = {"tokens": tokens, "done": None, "error": None, "new_token": new_token}
    return render(request, "account.html", context)


@router.post("/account/tokens/{token_id}/revoke")
def revoke_token(
    token_id: RowId, session: SessionDep, database: DatabaseDep, learner: LearnerDep, now: NowDep
) -> Response:
    members.revoke_api_token(
        session, learner=learner, token_id=token_id, now=now, database=database
    )
    return RedirectResponse("/account?done=revoked", status_code=303)
