"""Images that content shows, served from the content directory under their content hash."""

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import FileResponse, Response

from app.content.compile.images import ImageError, load, resolve
from app.errors import NotFound
from app.web.assets import IMMUTABLE, REVALIDATE
from app.web.deps import SettingsDep

router = APIRouter(include_in_schema=False)

# An SVG opened on its own is a document: it may run nothing and load nothing.
_SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"


@router.get("/media/{path:path}")
def media(
    path: str, settings: SettingsDep, v: Annotated[str | None, Query(max_length=64)] = None
) -> Response:
    try:
        image = load(settings.content_dir, resolve(path, ""))
    except ImageError:
        raise NotFound("image_not_found") from None
    headers = {"Cache-Control": IMMUTABLE if v == image.sha else REVALIDATE}
    if image.media_type == "image/svg+xml":
        headers["Content-Security-Policy"] = _SVG_POLICY
    return FileResponse(
        settings.content_dir / image.path, media_type=image.media_type, headers=headers
    )
