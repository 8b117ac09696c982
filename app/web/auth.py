"""Session cookies."""

from itsdangerous import URLSafeSerializer
from starlette.requests import Request
from starlette.responses import Response

from app.config import Settings

SESSION_COOKIE = "qbank_session"


def signer(settings: Settings) -> URLSafeSerializer:
    return URLSafeSerializer(settings.secret_key, salt="qbank-session")


def set_session_cookie(
    response: Response, request: Request, settings: Settings, token: str
) -> None:
    secure = settings.cookie_secure
    if secure is None:
        secure = request.url.scheme == "https"
    response.set_cookie(
        SESSION_COOKIE,
        signer(settings).dumps(token),
        max_age=settings.session_days * 86400,
        httponly=True,
        samesite="lax",
        secure=secure,
        path="/",
    )


def clear_session_cookie(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/")
