"""Build the FastAPI application."""

import gc
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse
from fastapi.routing import iter_route_contexts
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response
from starlette.types import ASGIApp

from app.config import Settings, get_settings
from app.infra.bank import open_database
from app.infra.jobs import wait_for_all
from app.interview.pins import InterviewPins
from app.web import errors, overload
from app.web.admission import Admission
from app.web.assets import IMMUTABLE, VersionedStaticFiles
from app.web.deps import csrf_protect, members_only, utc_now
from app.web.headers import SecurityHeaders
from app.web.hosts import HostGuard
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
    notes,
    offline,
    pages,
    practice,
    recordings,
    stats,
    study,
)
from app.web.routes import settings as settings_routes
from app.web.templating import assets, templates

JOB_GRACE_SECONDS = 30  # a stopping server lets background jobs finish their write


class App(FastAPI):
    """FastAPI with the access log, the security headers and the host check around everything.

    Starlette puts its ServerErrorMiddleware, which sends the 500 of an unexpected error, outside
    every middleware added with `add_middleware`; these three wrap it too, so every answer, a 500
    included, is logged, carries the request id and the security headers, and no foreign Host
    reaches even the error handler.
    """

    def build_middleware_stack(self) -> ASGIApp:
        inner = super().build_middleware_stack()
        return AccessLog(SecurityHeaders(HostGuard(inner, settings=self.state.settings)))


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    database = app.state.database
    database.upgrade()
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
        wait_for_all(database, timeout=JOB_GRACE_SECONDS)
        database.engine.dispose()  # its pooled connections; a restarted app opens new ones


def create_app(settings: Settings | None = None) -> FastAPI:
    """The web app over the bank in `settings.database_url`."""
    settings = settings or get_settings()
    app = App(
        title="qbank",
        description="Interview-prep flashcards: decks, FSRS study, topics and search.",
        version="0.1.0",
        # The default pages load their scripts from a CDN; /docs is served from static/ below.
        docs_url=None,
        redoc_url=None,
        lifespan=_lifespan,
    )
    bind(app, settings)
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
    for module in (*pages_modules, notes, recordings, marks, custom):
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
    overload.add_handlers(app)
    errors.add_handlers(app)
    return app


def bind(app: FastAPI, settings: Settings) -> None:
    """Point `app` at the bank of `settings`: the settings, the database, the clock (the real
    time) and the interview pins its requests see, and the middleware built from them (the host
    guard's list).

    Everything else an app holds (its routes, built on their first requests) is the same for
    every bank, so an app that is not serving can be bound again.
    """
    app.state.settings = settings
    app.state.database = open_database(settings)
    app.state.clock = utc_now
    # The study queue serves an interview's plan first without knowing interviews.
    app.state.pins = InterviewPins()
    app.middleware_stack = None  # rebuilt on the next request, over these settings


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
