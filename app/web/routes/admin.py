"""Administration: users, invites, re-importing content, and the team's progress."""

from typing import Annotated

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import RedirectResponse
from starlette.responses import Response

from app.accounts import members
from app.accounts.team import team_progress
from app.backup import BackupError, restore_learner
from app.content.bank.imports import import_job, start_import
from app.errors import AppError, Invalid, NotFound, TooLarge
from app.interview.recordings import (
    quota_bytes,
    set_team_quota,
    team_quota_mb,
    used_by_learner,
)
from app.study.browse import team_leeches
from app.web.deps import AdminDep, DatabaseDep, NowDep, SessionDep, SettingsDep
from app.web.i18n import language, say
from app.web.routes.data import backup_download, log_download, read_backup
from app.web.templating import render

router = APIRouter(prefix="/admin", include_in_schema=False)

Text = Annotated[str, Form(max_length=200)]


def _users_page(request: Request, session: SessionDep, now: NowDep, **extra: object) -> Response:
    context = {
        "users": members.list_users(session),
        "invites": members.list_invites(session, now),
        "invite_url": None,
        "error": None,
        "done": None,
        **extra,
    }
    status = 400 if context["error"] else 200
    return render(request, "admin_users.html", context, status_code=status)


@router.get("/users")
def users(
    request: Request, session: SessionDep, admin: AdminDep, now: NowDep, done: str | None = None
) -> Response:
    return _users_page(request, session, now, done=done)


@router.post("/users")
def add_user(
    request: Request,
    session: SessionDep,
    database: DatabaseDep,
    admin: AdminDep,
    now: NowDep,
    name: Text,
    password: Text,
    is_admin: Annotated[bool, Form()] = False,
) -> Response:
    try:
        members.create_user(
            session, name=name, password=password, is_admin=is_admin, database=database
        )
    except AppError as exc:
        return _users_page(request, session, now, error=say(exc, language(request)))
    return RedirectResponse("/admin/users?done=added", status_code=303)


@router.post("/users/{name}/disable")
def disable_user(
    name: str, session: SessionDep, database: DatabaseDep, admin: AdminDep
) -> Response:
    if name == admin.name:
        raise Invalid("cannot_disable_self")
    members.set_disabled(session, name=name, disabled=True, database=database)
    return RedirectResponse("/admin/users?done=disabled", status_code=303)


@router.post("/users/{name}/enable")
def enable_user(name: str, session: SessionDep, database: DatabaseDep, admin: AdminDep) -> Response:
    members.set_disabled(session, name=name, disabled=False, database=database)
    return RedirectResponse("/admin/users?done=enabled", status_code=303)


@router.post("/users/{name}/password")
def reset_password(
    request: Request,
    name: str,
    session: SessionDep,
    database: DatabaseDep,
    admin: AdminDep,
    now: NowDep,
    password: Text,
) -> Response:
    try:
        members.set_password(
            session, learner=members.get_user(session, name), password=password, database=database
        )
    except AppError as exc:
        return _users_page(request, session, now, error=say(exc, language(request)))
    return RedirectResponse("/admin/users?done=password", status_code=303)


@router.get("/users/{name}/backup.json")
def user_backup(name: str, session: SessionDep, admin: AdminDep) -> Response:
    return backup_download(session, members.get_user(session, name))


@router.get("/users/{name}/log.csv")
def user_log(name: str, session: SessionDep, admin: AdminDep) -> Response:
    return log_download(session, members.get_user(session, name))


@router.post("/users/{name}/restore")
def user_restore(
    request: Request,
    name: str,
    session: SessionDep,
    database: DatabaseDep,
    settings: SettingsDep,
    admin: AdminDep,
    now: NowDep,
    file: Annotated[UploadFile, File()],
) -> Response:
    learner = members.get_user(session, name)
    quota = quota_bytes(session, default_mb=settings.recording_quota_mb)
    try:
        # The bank is shared: history of cards it lacks is left out, never added to it.
        data = read_backup(file)
        restore_learner(
            session=session,
            learner=learner,
            data=data,
            new_cards=False,
            recording_quota=quota,
            database=database,
        )
    except (BackupError, TooLarge) as exc:  # TooLarge: the file, or its recordings
        return _users_page(request, session, now, error=f"{name}: {say(exc, language(request))}")
    return RedirectResponse("/admin/users?done=restored", status_code=303)


@router.post("/invites")
def create_invite(
    request: Request,
    session: SessionDep,
    database: DatabaseDep,
    settings: SettingsDep,
    admin: AdminDep,
    now: NowDep,
    is_admin: Annotated[bool, Form()] = False,
) -> Response:
    token = members.create_invite(
        session,
        admin=admin,
        now=now,
        days=settings.invite_days,
        is_admin=is_admin,
        database=database,
    )
    url = str(request.url_for("invite_page", token=token))
    return _users_page(request, session, now, invite_url=url)


@router.get("/team")
def team(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    admin: AdminDep,
    now: NowDep,
    saved: bool = False,
) -> Response:
    decks, members = team_progress(session, now=now)
    context = {
        "decks": decks,
        "members": members,
        "leeches": team_leeches(session),
        "recordings_used": used_by_learner(session),
        "quota_mb": team_quota_mb(session),
        "default_quota_mb": settings.recording_quota_mb,
        "saved": saved,
    }
    return render(request, "admin_team.html", context)


@router.post("/limits")
def set_limits(
    session: SessionDep,
    database: DatabaseDep,
    admin: AdminDep,
    recording_quota_mb: Annotated[int | None, Form(ge=0, le=1024 * 1024)] = None,
) -> Response:
    """Set every member's recording space; left empty, the server's setting applies."""
    set_team_quota(session, quota_mb=recording_quota_mb, database=database)
    return RedirectResponse("/admin/team?saved=true#team-limits", status_code=303)


@router.post("/import")
def reimport(request: Request, settings: SettingsDep, admin: AdminDep) -> Response:
    """Start re-importing the content directory; the page shows how it goes."""
    job = start_import(request.app.state.database, settings.content_dir)
    return RedirectResponse(f"/admin/import?job={job.id}", status_code=303)


@router.get("/import")
def import_page(
    request: Request, session: SessionDep, admin: AdminDep, job: int | None = None
) -> Response:
    """The import job `job` (else the latest one): running, its report, or its errors."""
    found = import_job(session, job_id=job)
    if job is not None and found is None:
        raise NotFound("job_not_found", job=job)
    return render(request, "admin_import.html", {"job": found})
