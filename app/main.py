"""Build the FastAPI application."""

import gc
import logging
from collections import deque
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.routing import iter_route_contexts
from sqlalchemy.exc import DataError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response

from app.config import Settings, get_settings
from app.errors import StudyError
from app.infra.bank import open_database
from app.infra.jobs import wait_for_all
from app.infra.logs import REQUEST_ID
from app.interview.pins import InterviewPins
from app.web import overload
from app.web.admission import Admission
from app.web.assets import IMMUTABLE, VersionedStaticFiles
from app.web.auth import NotSignedIn
from app.web.deps import csrf_protect, members_only
from app.web.headers import SecurityHeaders, headers_for
from app.web.hosts import HostGuard
from app.web.i18n import language, say
from app.web.observe import AccessLog, metrics
from app.web.routes import (
    account,
    admin,
    api,
    custom,
    data,
    imports,
    interview,
    interview_api,
    jobs,
    marks,
    media,
    mock,
    offline,
    pages,
    practice,
    recordings,
    stats,
    study,
)
from app.web.routes import settings as settings_routes
from app.web.templating import assets, render, templates

OUT_OF_RANGE = ("less_than_equal", "greater_than_equal")
JOB_GRACE_SECONDS = 30  # a stopping server lets background jobs finish their write

log = logging.getLogger("qbank")


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get(
        "accept", ""
    )


def _error(
    request: Request, status: int, detail: object, headers: Mapping[str, str] | None = None
) -> Response:
    if _wants_json(request):
        return JSONResponse({"detail": detail}, status_code=status, headers=headers)
    message = detail if isinstance(detail, str) else "invalid request"
    response = render(
        request, "error.html", {"status": status, "detail": message}, status_code=status
    )
    response.headers.update(headers or {})
    return response


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    database = app.state.database
    database.start()
    # A full garbage collection walks every tracked object, and most of a started server's
    # objects (modules, models, routes, templates) are there for good: walking them again and
    # again stalls the event loop, and every request in flight, while study traffic makes
    # garbage. Start-up's objects are left out of later collections; refcounting still frees
    # them, and a stopped app hands them back.
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        database.stop()
        wait_for_all(timeout=JOB_GRACE_SECONDS)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The web app over the bank in `settings.database_url`."""
    settings = settings or get_settings()
    app = FastAPI(
        title="qbank",
        description="Interview-prep flashcards: decks, FSRS study, topics and search.",
        version="0.1.0",
        # The default pages load their scripts from a CDN; /docs is served from static/ below.
        docs_url=None,
        redoc_url=None,
        lifespan=_lifespan,
    )
    app.state.settings = settings
    app.state.database = open_database(settings)
    app.state.engine = app.state.database.engine
    # The study queue serves an interview's plan first without knowing interviews.
    app.state.pins = InterviewPins()
    app.mount("/static", VersionedStaticFiles(assets), name="static")
    members = [Depends(members_only)]
    # Routes are matched in the order they are included: the API, which the study page calls
    # for every card, comes first.
    app.include_router(api.health)
    # Guarded inside each route's one thread hop (StudyCall) rather than by `members`.
    app.include_router(api.study_api, responses=overload.RESPONSES)
    app.include_router(api.router, dependencies=members, responses=overload.RESPONSES)
    app.include_router(interview_api.router, dependencies=members, responses=overload.RESPONSES)
    app.include_router(marks.api, dependencies=members, responses=overload.RESPONSES)
    app.include_router(custom.api, dependencies=members, responses=overload.RESPONSES)
    pages_modules = (
        pages,
        settings_routes,
        study,
        practice,
        interview,
        mock,
        admin,
        imports,
        media,
    )
    for module in (*pages_modules, recordings, marks, custom):
        app.include_router(module.router, dependencies=members)
    app.include_router(data.router, dependencies=members)
    app.include_router(stats.router, dependencies=members)
    app.include_router(stats.api, dependencies=members, responses=overload.RESPONSES)
    app.include_router(jobs.api, dependencies=members, responses=overload.RESPONSES)
    app.include_router(settings_routes.api, dependencies=members, responses=overload.RESPONSES)
    app.include_router(account.router, dependencies=[Depends(csrf_protect)])
    app.include_router(pages.public)
    app.include_router(offline.router)
    app.add_route("/metrics", metrics, include_in_schema=False)

    @app.get("/docs", include_in_schema=False)
    def api_docs(request: Request) -> Response:
        # FastAPI's own page starts Swagger UI with an inline script, which the CSP refuses.
        return templates.TemplateResponse(request, "docs.html", {})

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        # For clients that ask before reading the page's <link rel="icon">.
        return RedirectResponse(assets.url("favicon.svg"), headers={"Cache-Control": IMMUTABLE})

    # Pages, CSS, JS and JSON travel gzipped (fonts and images are compressed already). Level 6
    # is within a few per cent of 9 in size at a fraction of the CPU. Browsers offer brotli
    # and zstd only over HTTPS, where the proxy in front of qbank can add them.
    app.add_middleware(GZipMiddleware, minimum_size=1000, compresslevel=6)
    app.add_middleware(Admission)
    # The last added runs first: every response, refusals included, is logged and gets headers.
    app.add_middleware(HostGuard, settings=settings)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(AccessLog)

    overload.add_handlers(app)

    @app.exception_handler(StudyError)
    async def _study_error(request: Request, exc: StudyError) -> Response:
        if isinstance(exc, NotSignedIn) and not _wants_json(request):
            if request.method != "GET":
                # A form post cannot be replayed by the GET that follows signing in.
                return RedirectResponse("/login", status_code=303)
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
        return _error(request, exc.status, say(exc, language(request)))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # Kept headers: a 405's Allow, a 401's WWW-Authenticate.
        return _error(request, exc.status_code, exc.detail, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> Response:
        problems = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in exc.errors()
        ]
        if any(p["loc"][:1] == ["path"] and p["type"] in OUT_OF_RANGE for p in problems):
            # An id past the integer columns (RowId) names nothing that could exist.
            return _error(request, 404, f"nothing at {request.url.path}")
        if _wants_json(request):
            return JSONResponse({"detail": problems}, status_code=422)
        text = "; ".join(f"{'.'.join(map(str, p['loc'][1:]))}: {p['msg']}" for p in problems)
        return _error(request, 400, text)

    @app.exception_handler(DataError)
    async def _bad_data(request: Request, exc: DataError) -> Response:
        # e.g. a NUL character, which PostgreSQL text cannot hold: the input is at fault.
        return _error(
            request, 400, "the request contains characters or values that cannot be stored"
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        response = _error(request, 500, "internal error; the details are in the server log")
        # Sent from outside the access-log and headers middleware, which add the id and the
        # security headers to other answers.
        if request_id := REQUEST_ID.get():
            response.headers["x-request-id"] = request_id
        for name, value in headers_for(request.url.scheme):
            response.headers[name.decode()] = value.decode()
        return response

    return app


def serving_app(settings: Settings | None = None) -> FastAPI:
    """The web app as `qbank serve` runs it: every route built before the first request."""
    app = create_app(settings)
    build_routes(app)
    return app


def build_routes(app: FastAPI) -> None:
    """Build every route's request and response models now, in this one thread.

    FastAPI builds them on the first request that matches a route, and each build sets and then
    restores the warnings filters of the whole process. Builds running at once in several
    threads (an app served from more than one event loop, as the tests' clients do) restored
    each other's filters midway: a warning FastAPI meant to silence was raised, and the first
    requests of a burst answered 500. An app that only ever answers from one thread (a test's
    single client) can leave the builds to the first requests.
    """
    deque(iter_route_contexts(app.router.routes), maxlen=0)
