"""Where the app may send a browser back to: a path on this site, never another host."""

from urllib.parse import unquote, urlsplit

from starlette.requests import Request

# WHATWG URL parsing drops tabs and newlines and trims spaces and control characters, so
# "/\t/evil.example" is "//evil.example" to a browser: any of them refuses the target.
_UNSAFE = {chr(c) for c in range(0x21)} | {"\x7f", "\\"}
_DECODE_ROUNDS = 3  # a target encoded twice over still shows its slashes


def safe_local_path(target: str | None, fallback: str = "/", *, absolute: bool = False) -> str:
    """`target`'s path and query when they stay on this site, else `fallback`.

    Refused: other hosts ("//host", "/\\host"), schemes ("javascript:", "https://host"),
    backslashes, spaces and control characters, raw or percent-encoded. With `absolute` (a
    Referer), an http(s) URL is reduced to its path and query.
    """
    if not target:
        return fallback
    parts = urlsplit(target)
    if absolute and parts.scheme in ("http", "https") and parts.netloc:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/"):
        return fallback
    # urlsplit reads "///host" as an empty netloc and a path; a browser reads it as a host.
    decoded = target.split("?", 1)[0].split("#", 1)[0]  # a query may hold encoded spaces
    for _ in range(_DECODE_ROUNDS):
        decoded = unquote(decoded)
    if decoded.startswith("//") or any(char in _UNSAFE for char in target + decoded):
        return fallback
    return parts.path + (f"?{parts.query}" if parts.query else "")


def back(request: Request) -> str:
    """The page the request came from (its Referer) when that is on this site, else "/"."""
    return safe_local_path(request.headers.get("referer"), absolute=True)
