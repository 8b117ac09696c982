"""The service worker that keeps qbank's app shell, so that an installed qbank opens offline."""

import json
from functools import cache

from fastapi import APIRouter
from starlette.responses import Response

from app.web.templating import assets

router = APIRouter(include_in_schema=False)

# What every page needs, under today's versioned URLs: styles, scripts, KaTeX's fonts (the
# woff2 that every current browser takes), the icons and the manifest.
SHELL_PATTERNS: tuple[str, ...] = (
    *("*.css", "*.js", "*.svg", "manifest.json", "icons/*.png", "katex/*.css"),
    "katex/fonts/*.woff2",
)


@cache
def _worker() -> str:
    files = sorted(
        {p for pattern in SHELL_PATTERNS for p in assets.directory.glob(pattern) if p.is_file()}
    )
    urls = [assets.url(p.relative_to(assets.directory).as_posix()) for p in files]
    shell = {"version": assets.version, "urls": urls}
    source = (assets.directory / "sw.js").read_text(encoding="utf-8")
    return f"const SHELL = {json.dumps(shell)};\n{source}"


@router.get("/sw.js")
def service_worker() -> Response:
    """The worker at the site's root, so that its scope is every page."""
    return Response(_worker(), media_type="text/javascript", headers={"Cache-Control": "no-cache"})
