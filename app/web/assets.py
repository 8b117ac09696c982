"""Static files under content-hashed URLs, cached by browsers for good; other URLs revalidate."""

import hashlib
from pathlib import Path

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


def tree_version(directory: Path) -> str:
    """A short hash of every file's path and bytes under `directory`."""
    digest = hashlib.sha256()
    for file in sorted(p for p in directory.rglob("*") if p.is_file()):
        digest.update(file.relative_to(directory).as_posix().encode() + b"\0")
        digest.update(file.read_bytes())
    return digest.hexdigest()[:12]


class Assets:
    """URLs of static files, versioned by the content of the whole static tree.

    One version for the tree, not one per file, so that the URLs a stylesheet makes relative
    to itself (KaTeX's fonts) carry the version too and can be cached as long as it is.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.version = tree_version(directory)

    def url(self, path: str) -> str:
        """The long-cached URL of the static file at `path` (relative to static/)."""
        return f"/static/v/{self.version}/{path.lstrip('/')}"


class VersionedStaticFiles(StaticFiles):
    """Serve static/ at `v/<version>/<path>` (immutable) and at `<path>` (revalidated)."""

    def __init__(self, assets: Assets) -> None:
        super().__init__(directory=assets.directory)
        self.version = assets.version

    async def get_response(self, path: str, scope: Scope) -> Response:
        current = False
        parts = path.split("/", 2)
        if parts[0] == "v" and len(parts) == 3:
            # A page from before an upgrade may ask for an older version: serve today's file,
            # but let nobody keep it under that URL.
            current, path = parts[1] == self.version, parts[2]
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            response.headers["Cache-Control"] = IMMUTABLE if current else REVALIDATE
        return response
