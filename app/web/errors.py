"""How the app answers a refused or failed request: JSON for clients, the error page for people.

Every error answer comes from `answer()`: a JSON client gets `{"detail": message, "code": code}`
(`detail` as before, `code` to branch on), a browser the error page with the message worded in
its language. Exceptions that are not the app's own (FastAPI's validation, Starlette's 404 and
405, a value the database cannot store, an unexpected error) are turned into an AppError first.
"""

import logging
from collections.abc import Mapping
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from sqlalchemy.exc import DataError
from starlette.exceptions import HTTPException
from starlette.responses import Response

from app.errors import AppError, Invalid, NotFound, NotSignedIn
from app.web.i18n import language, say
from app.web.templating import render

log = logging.getLogger("qbank")

OUT_OF_RANGE = ("less_than_equal", "greater_than_equal")
# Starlette's own refusals (no route, wrong method, a static file missing), by status.
HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


class Failed(AppError):
    """An error the app did not expect: a 500 whose details are in the log."""

    status = 500


class HttpRefusal(AppError):
    """One of Starlette's own refusals, with its status."""

    def __init__(self, status: int) -> None:
        code = HTTP_CODES.get(status, "http")
        super().__init__(code, status=status)
        self.status = status


def wants_json(request: Request) -> bool:
    """Whether the client reads JSON: an API path, or a request that accepts JSON."""
    if request.url.path.startswith("/api/"):
        return True
    return "application/json" in request.headers.get("accept", "")


def answer(
    request: Request,
    exc: AppError,
    headers: Mapping[str, str] | None = None,
    detail: object = None,
) -> Response:
    """The answer to a refused request; `detail` replaces the message in JSON (a problem list)."""
    message = say(exc, language(request))
    if wants_json(request):
        body = {"detail": message if detail is None else detail, "code": exc.code}
        return JSONResponse(body, status_code=exc.status, headers=headers)
    context = {"status": exc.status, "detail": message, "code": exc.code}
    response = render(request, "error.html", context, status_code=exc.status)
    response.headers.update(headers or {})
    return response


def _sign_in(request: Request) -> Response:
    if request.method != "GET":
        # A form post cannot be replayed by the GET that follows signing in.
        return RedirectResponse("/login", status_code=303)
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)


def add_handlers(app: FastAPI) -> None:
    """Answer the app's refusals, and every other error, through `answer()`."""

    @app.exception_handler(AppError)
    async def _refused(request: Request, exc: AppError) -> Response:
        if isinstance(exc, NotSignedIn) and not wants_json(request):
            return _sign_in(request)
        return answer(request, exc)

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> Response:
        # Kept headers: a 405's Allow, a 401's WWW-Authenticate.
        return answer(request, HttpRefusal(exc.status_code), exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        problems = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in exc.errors()
        ]
        if any(p["loc"][:1] == ["path"] and p["type"] in OUT_OF_RANGE for p in problems):
            # An id past the integer columns (RowId) names nothing that could exist.
            missing = NotFound("not_found", key="error.nothing_here", path=request.url.path)
            return answer(request, missing)
        text = "; ".join(f"{'.'.join(map(str, p['loc'][1:]))}: {p['msg']}" for p in problems)
        invalid = Invalid("invalid_request", problems=text)
        if wants_json(request):
            invalid.status = 422
        return answer(request, invalid, detail=problems)

    @app.exception_handler(DataError)
    async def _not_storable(request: Request, exc: DataError) -> Response:
        # e.g. a NUL character, which PostgreSQL text cannot hold: the input is at fault.
        return answer(request, Invalid("not_storable"))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        # Starlette's ServerErrorMiddleware sends this answer; the app's outermost layers
        # (app.main.App) still add the request id and the security headers to it.
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return answer(request, Failed("internal"))
