"""Who may do what: every route of the team app, as nobody, as a member and as an administrator.

The routes are read from the app itself, so a new route fails here until it is given a request
below (and, if it is meant to be reachable without signing in, a place in PUBLIC).
"""

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import quote

import httpx2
import pytest
from fastapi import FastAPI
from sqlmodel import Session

from app.accounts import members
from app.backup import dump_backup, export_learner
from app.infra.db import database_of
from app.infra.jobs import run_job
from app.infra.models import Learner
from app.interview.interviews import create_interview
from app.interview.mock import start_mock
from app.interview.recordings import MB, save_recording
from app.practice.quiz import start_practice
from app.study import Filters, catalog, record_review
from tests.support.routes import app_routes, statements, written_tables
from tests.support.team import NEW_PASSWORD, PASSWORDS, START

# Reachable without an account. Everything else needs one; /admin/* needs an administrator.
# Outside /admin/, pages only an administrator may open in team mode.
ADMINS_ONLY = {("GET", "/import")}  # the import report names files of the whole bank

PUBLIC = {
    ("GET", "/login"),
    ("POST", "/login"),
    ("POST", "/logout"),  # signing out without a session just lands on /login
    ("GET", "/invite/{token}"),  # the token is the credential
    ("POST", "/invite/{token}"),
    ("GET", "/signup"),  # refused unless open_signup (tests/team/test_invites.py)
    ("POST", "/signup"),
    ("GET", "/lang/{code}"),  # the sign-in page offers the language switch
    ("GET", "/healthz"),  # for the container's HEALTHCHECK and the proxy
    ("GET", "/metrics"),  # no learner data; docs/deploy.md keeps it off the public proxy
    ("GET", "/static"),
    ("GET", "/favicon.ico"),  # a redirect to the icon in /static
    ("GET", "/sw.js"),  # the service worker script: the shell of static files, no learner data
    ("GET", "/docs"),  # describes the API; every call it documents still needs an account
    ("GET", "/openapi.json"),
}
MOUNT_URLS = {"/static": "/static/app.css"}
QUERIES = {("GET", "/search"): {"q": "kernel"}, ("GET", "/api/search"): {"q": "kernel"}}
SETTINGS_FORM = {
    "desired_retention": "0.85",
    "new_per_day": "15",
    "max_reviews_per_day": "150",
    "rollover_hour": "4",
    "timezone": "UTC",
}
ROLES = ("anonymous", "member", "admin")
# Signed-in requests answered with a refusal about their content, not about who sent them.
CONTENT_REFUSALS: dict[tuple[str, str], set[int]] = {
    ("GET", "/media/{path:path}"): {404},
    # This bank's decks sit in no folder (tests/web/test_folders_web.py reads folders).
    ("GET", "/folders/{folder:path}"): {
        404
    },  # this bank shows no image (tests/web/test_media.py does)
    # The checklist's key is made up here, so the answer is refused as stale, not as foreign.
    ("POST", "/interview/mock/{mock_id}/answer"): {409},
    ("POST", "/api/mocks/{mock_id}/answers"): {409},
}
WEBM = b"\x1a\x45\xdf\xa3" + b"\x00" * 64


@dataclass
class Ids:
    """Real rows for path parameters and bodies; per-learner rows are keyed by learner name."""

    app: FastAPI
    topic: str
    topic_title: str
    practice: dict[str, int]
    token: dict[str, int]
    backup: dict[str, bytes]
    job: dict[str, int]
    serial: itertools.count  # type: ignore[type-arg]
    interview: dict[str, dict[str, int]]  # per learner: rows of interview mode by use

    def fresh_name(self) -> str:
        return f"newcomer-{next(self.serial)}"

    def invite(self) -> str:
        with self.app.state.database.session() as session:
            admin = members.get_user(session, "admin")
            return members.create_invite(
                session, admin=admin, now=START, days=7, database=self.app.state.database
            )


@dataclass
class Call:
    ids: Ids
    role: str

    @property
    def owner(self) -> str:
        """Whose rows the path parameters name: the caller's own (nobody borrows member's)."""
        return "member" if self.role == "anonymous" else self.role


CARD_ACTIONS = ("suspend", "unsuspend", "bury", "unbury", "unleech")
# The request each (method, path) gets; every POST must be listed, even with an empty body.
BODIES: dict[tuple[str, str], Callable[[Call], dict[str, Any]]] = {
    ("POST", "/settings"): lambda c: {"data": SETTINGS_FORM},
    ("POST", "/settings/optimize"): lambda c: {},
    ("POST", "/settings/optimize/reset"): lambda c: {},
    ("POST", "/study/review"): lambda c: {"data": {"card_id": "gemm", "rating": "3"}},
    ("POST", "/study/undo"): lambda c: {},
    ("POST", "/practice"): lambda c: {"data": {"deck": "gpu"}},
    ("POST", "/practice/{practice_id}/rate"): lambda c: {
        "data": {"card_id": "kernel", "rating": "3"}
    },
    ("POST", "/admin/users"): lambda c: {
        "data": {"name": c.ids.fresh_name(), "password": NEW_PASSWORD}
    },
    ("POST", "/admin/users/{name}/disable"): lambda c: {},
    ("POST", "/admin/users/{name}/enable"): lambda c: {},
    ("POST", "/admin/users/{name}/password"): lambda c: {"data": {"password": NEW_PASSWORD}},
    ("POST", "/admin/users/{name}/restore"): lambda c: {
        "files": {"file": ("backup.json", c.ids.backup["member"], "application/json")}
    },
    ("POST", "/admin/invites"): lambda c: {},
    ("POST", "/admin/import"): lambda c: {},
    ("POST", "/api/reviews"): lambda c: {"json": {"card_id": "kernel", "rating": 3}},
    ("POST", "/api/reviews/undo"): lambda c: {},
    **{("POST", f"/api/cards/{{card_id}}/{action}"): lambda c: {} for action in CARD_ACTIONS},
    ("POST", "/api/cards/{card_id}/flag"): lambda c: {"json": {"flag": 2}},
    ("POST", "/api/cards/{card_id}/leech"): lambda c: {"json": {"suspended": False}},
    ("POST", "/cards/{card_id}/{action}"): lambda c: {"data": {"flag": "2"}},
    ("POST", "/api/study/new-today"): lambda c: {"json": {"count": 3}},
    ("POST", "/study/custom/new"): lambda c: {"data": {"count": "3"}},
    ("POST", "/settings/timezone"): lambda c: {"data": {"timezone": "Asia/Shanghai"}},
    ("POST", "/backup/restore"): lambda c: {
        "files": {"file": ("backup.json", c.ids.backup[c.owner], "application/json")}
    },
    ("POST", "/login"): lambda c: {"data": {"name": c.owner, "password": PASSWORDS[c.owner]}},
    ("POST", "/logout"): lambda c: {},
    ("POST", "/invite/{token}"): lambda c: {
        "data": {"name": c.ids.fresh_name(), "password": NEW_PASSWORD}
    },
    ("POST", "/signup"): lambda c: {"data": {"name": c.ids.fresh_name(), "password": NEW_PASSWORD}},
    ("POST", "/account/password"): lambda c: {
        "data": {"old_password": PASSWORDS[c.owner], "new_password": PASSWORDS[c.owner]}
    },
    ("POST", "/account/tokens"): lambda c: {"data": {"name": "matrix"}},
    ("POST", "/account/tokens/{token_id}/revoke"): lambda c: {},
    ("POST", "/api/interviews"): lambda c: {"json": {"name": "Matrix", "date": "2025-03-20"}},
    ("POST", "/interviews"): lambda c: {"data": {"name": "Matrix", "date": "2025-03-20"}},
    ("POST", "/interviews/{interview_id}/delete"): lambda c: {},
    ("POST", "/interview/mock"): lambda c: {"data": {"count": "2"}},
    ("POST", "/interview/mock/{mock_id}/answer"): lambda c: {
        "data": {"card_id": "kernel", "key": "stale", "t0": "0"}
    },
    ("POST", "/interview/mock/{mock_id}/study"): lambda c: {},
    ("POST", "/interview/mock/{mock_id}/end"): lambda c: {},
    ("POST", "/admin/limits"): lambda c: {"data": {"recording_quota_mb": "250"}},
    ("POST", "/api/mocks/{mock_id}/answers"): lambda c: {
        "json": {"card_id": "kernel", "key": "stale", "answer_ms": 0, "total_ms": 0}
    },
    ("POST", "/interview/recordings/{recording_id}/delete"): lambda c: {},
    ("DELETE", "/api/interviews/{interview_id}"): lambda c: {},
    ("DELETE", "/api/recordings/{recording_id}"): lambda c: {},
    ("POST", "/api/mocks/{mock_id}/recordings"): lambda c: {
        "content": WEBM,
        "params": {"card_id": "paged"},  # not one of the recordings the other routes read
        "headers": {"Content-Type": "audio/webm"},
    },
}


def interview_row(call: Call, path: str, kind: str) -> int:
    """The caller's own row; the routes that delete one get one of their own."""
    rows = call.ids.interview[call.owner]
    doomed = {
        "/api/interviews/{interview_id}": "interview_api",
        "/interviews/{interview_id}/delete": "interview_form",
        "/api/recordings/{recording_id}": "recording_api",
        "/interview/recordings/{recording_id}/delete": "recording_form",
        "/interview/mock/{mock_id}/end": "mock_end",
    }
    return rows[doomed.get(path, kind)]


def path_value(call: Call, path: str, param: str) -> str:
    values: dict[str, Callable[[], object]] = {
        "card_id": lambda: "kernel",
        "slug": lambda: "gpu" if path.startswith("/decks/") else call.ids.topic,
        "title": lambda: call.ids.topic_title,
        "code": lambda: "zh",
        "practice_id": lambda: call.ids.practice[call.owner],
        "token_id": lambda: call.ids.token[call.owner],
        "name": lambda: "other",
        "job_id": lambda: call.ids.job[call.owner],
        "path": lambda: "decks/a-gpu.md" if path.startswith("/notes/") else "assets/figure.png",
        "action": lambda: "flag",
        "kind": lambda: "flagged",
        "folder": lambda: "kernels",
        "token": call.ids.invite,  # a fresh one each time: invites are single-use
        "interview_id": lambda: interview_row(call, path, "interview"),
        "mock_id": lambda: interview_row(call, path, "mock"),
        "recording_id": lambda: interview_row(call, path, "recording"),
    }
    if param not in values:
        pytest.fail(f"{path}: no value for the path parameter {{{param}}}; add one to path_value")
    return quote(str(values[param]()))


def request_for(call: Call, method: str, path: str) -> tuple[str, dict[str, Any]]:
    if path in MOUNT_URLS:
        return MOUNT_URLS[path], {}
    if method != "GET" and (method, path) not in BODIES:
        pytest.fail(f"{method} {path}: no request body; add one to BODIES")
    url = re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: path_value(call, path, m[1]), path)
    kwargs = BODIES.get((method, path), lambda c: {})(call)
    if (method, path) in QUERIES:
        kwargs["params"] = QUERIES[method, path]
    return url, kwargs


@pytest.fixture
def matrix_app(make_app: Callable[..., FastAPI], app: FastAPI) -> FastAPI:
    """The team app with open sign-up, so that /signup is reachable too."""
    return make_app(open_signup=True)


@pytest.fixture
def ids(matrix_app: FastAPI, users: dict[str, Learner]) -> Ids:
    practice, token, backup, job, interview = {}, {}, {}, {}, {}
    with matrix_app.state.database.session() as session:
        topic = catalog.topics(session)[0][0]
        for name in ("member", "admin"):
            learner = members.get_user(session, name)
            # Two ratings each, so both undo routes have something to undo.
            for card_id in ("paged", "kv"):
                record_review(
                    session,
                    learner=learner,
                    card_id=card_id,
                    rating=3,
                    now=START,
                    database=matrix_app.state.database,
                )
            run = start_practice(
                session,
                learner=learner,
                filters=Filters(),
                order="content",
                seconds_per_card=0,
                now=START,
                card_ids=["kernel", "fusion"],
                database=matrix_app.state.database,
            )
            practice[name] = run.id
            members.create_api_token(
                session,
                learner=learner,
                name="script",
                now=START,
                database=matrix_app.state.database,
            )
            token[name] = members.api_tokens(session, learner=learner)[0].id
            backup[name] = dump_backup(export_learner(session=session, learner=learner)).encode()
            done = run_job(
                matrix_app.state.database,
                kind="matrix",
                learner_id=learner.id,
                work=lambda _session, _job: ("done", None),
            )
            job[name] = done.id
            interview[name] = interview_rows(session, learner)
        return Ids(
            matrix_app,
            topic.slug,
            topic.title,
            practice,
            token,
            backup,
            job,
            itertools.count(),
            interview,
        )


def interview_rows(session: Session, learner: Learner) -> dict[str, int]:
    """An interview, a mock interview over every card and recordings, to read and delete."""
    database = database_of(session)
    rows = {}
    for key in ("interview", "interview_api", "interview_form"):
        made = create_interview(
            session,
            learner=learner,
            name=key,
            day=START.date() + timedelta(days=5),
            filters=Filters(),
            now=START,
            database=database,
        )
        rows[key] = made.id
    for key in ("mock_end", "mock"):
        run = start_mock(
            session,
            learner=learner,
            filters=Filters(),
            count=5,
            order="random",
            seconds_per_question=60,
            followup_seconds=30,
            now=START,
            database=database,
        )
        rows[key] = run.id
    for key, card_id in (
        ("recording", "kernel"),
        ("recording_api", "fusion"),
        ("recording_form", "gemm"),
    ):
        kept = save_recording(
            session,
            learner=learner,
            run=run,
            card_id=card_id,
            content_type="audio/webm",
            data=WEBM,
            now=START,
            quota=MB,
            database=database,
        )
        rows[key] = kept.id
    return rows


def login_url(method: str, url: httpx2.URL) -> str:
    """Where a page sends nobody: the sign-in page, then back to the page asked for.

    A form post cannot be replayed after signing in, so it only leads to the sign-in page.
    """
    if method != "GET":
        return "/login"
    target = url.path + (f"?{url.query.decode()}" if url.query else "")
    return f"/login?next={quote(target, safe='')}"


def check(role: str, method: str, path: str, response: httpx2.Response) -> str | None:
    """What is wrong with `response`, or None."""
    status, location = response.status_code, response.headers.get("location", "")
    public = (method, path) in PUBLIC
    if role == "anonymous" and not public:
        if path.startswith("/api/"):
            ok = status == 401 and "detail" in response.json()
            return None if ok else f"expected 401 JSON, got {status}"
        expected = login_url(method, response.request.url)
        if status != 303 or location != expected:
            return f"expected 303 to {expected}, got {status} {location}"
        return None
    if role == "member" and (path.startswith("/admin/") or (method, path) in ADMINS_ONLY):
        return None if status == 403 else f"expected 403, got {status}"
    if status in CONTENT_REFUSALS.get((method, path), ()):
        return None
    if status >= 400:
        return f"expected 2xx/3xx, got {status}: {response.text[:200]}"
    if location.startswith("/login") and (method, path) != ("POST", "/logout"):
        return f"sent to sign in: {location}"
    return None


@pytest.mark.parametrize("role", ROLES)
def test_every_route(role, matrix_app, ids, browser):
    client = browser(None if role == "anonymous" else role, app=matrix_app)
    routes = app_routes(matrix_app)
    assert len(routes) > 40, routes  # the enumeration itself works
    problems = []
    for method, path in routes:
        url, kwargs = request_for(Call(ids, role), method, path)
        cookies = httpx2.Cookies(client.client.cookies)
        headers = {"X-CSRF-Token": client.csrf} if client.csrf else {}
        headers |= kwargs.pop("headers", {})
        response = client.client.request(method, url, headers=headers, **kwargs)
        # Signing in or up elsewhere (login, invites, sign-up) would switch this browser's user.
        client.client.cookies = cookies
        if problem := check(role, method, path, response):
            problems.append(f"{method} {url} as {role}: {problem}")
    assert not problems, "\n".join(problems)


def test_the_tables_name_only_existing_routes(app):
    assert set(app_routes(app)) >= PUBLIC
    assert {route for route in BODIES if route not in app_routes(app)} == set()


def test_member_cannot_change_users(browser, db):
    member = browser("member")
    assert member.submit("/admin/users/other/disable").status_code == 403
    response = member.submit("/admin/users", {"name": "mallory", "password": NEW_PASSWORD})
    assert response.status_code == 403
    response = member.submit("/admin/users/admin/password", {"password": NEW_PASSWORD})
    assert response.status_code == 403
    assert not db.learner("other").disabled
    assert db.count(Learner, name="mallory") == 0
    browser("admin")  # the admin's password still works


def test_api_refusals_are_json(browser):
    member = browser("member")
    response = member.get("/admin/team", headers={"Accept": "application/json"})
    assert (response.status_code, response.json()["code"]) == (403, "admin_only")
    anonymous = browser()
    response = anonymous.get("/api/study/next")
    assert (response.status_code, response.json()["code"]) == (401, "not_signed_in")


def test_sign_in_returns_to_the_page_asked_for(browser):
    anonymous = browser()
    refused = anonymous.get("/decks/gpu?x=1")
    assert refused.headers["location"] == "/login?next=%2Fdecks%2Fgpu%3Fx%3D1"
    page = anonymous.get(refused.headers["location"])
    assert 'name="next" value="/decks/gpu?x=1"' in page.text
    response = anonymous.login("member", next="/decks/gpu?x=1")
    assert response.headers["location"] == "/decks/gpu?x=1"


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "/\\evil.example"])
def test_sign_in_never_continues_off_site(browser, target):
    response = browser().login("member", next=target)
    assert (response.status_code, response.headers["location"]) == (303, "/")


# Writes a GET may make, each bookkeeping of the request itself rather than a change the reader
# asked for, by table. Nothing else may write. (In local mode the local learner is also made on
# first use, app/accounts/learners.get_learner: tests/web/test_reads_write_nothing.py.)
BOOKKEEPING: dict[str, str] = {
    "apitoken": "a script's token notes when it was last used, at most once a minute "
    "(app/accounts/members.py), for the tokens page",
}


@pytest.mark.parametrize("role", ["member", "admin", "script"])
def test_every_get_writes_nothing_but_bookkeeping(role, matrix_app, ids, browser):
    """Every GET route of the app, signed in by cookie, or by an API token for a script."""
    client = browser(None if role == "script" else role, app=matrix_app)
    headers = {}
    if role == "script":
        with matrix_app.state.database.session() as session:
            member = members.get_user(session, "member")
            secret = members.create_api_token(
                session, learner=member, name="reads", now=START, database=matrix_app.state.database
            )
        headers = {"Authorization": f"Bearer {secret}"}
    engine = matrix_app.state.database.engine
    gets = [path for method, path in app_routes(matrix_app) if method == "GET"]
    assert len(gets) > 30, gets  # the enumeration itself works

    problems, bookkeeping, count = [], set(), 0
    for path in gets:
        url, kwargs = request_for(Call(ids, "member" if role == "script" else role), "GET", path)
        cookies = httpx2.Cookies(client.client.cookies)
        with statements(engine) as seen:
            response = client.client.get(url, headers=headers, **kwargs)
        client.client.cookies = cookies
        assert response.status_code < 500, (url, response.text[:200])
        count += len(seen)
        written = written_tables(seen)
        bookkeeping |= written & set(BOOKKEEPING)
        if extra := written - set(BOOKKEEPING):
            problems.append(f"GET {url} as {role} wrote {sorted(extra)}")
    assert not problems, "\n".join(problems)
    assert count > len(gets)  # the statements were seen
    # A script's first request notes its token's use: the one bookkeeping write seen here.
    assert bookkeeping == ({"apitoken"} if role == "script" else set())
