"""Images beside the content: resolved against the file that shows them, checked, given a URL.

`![alt](../assets/roofline.png)` in `decks/gpu.md` names `assets/roofline.png` under the content
directory. Only files inside that directory, of a known image type whose bytes match it and
under MAX_BYTES, are shown; anything else is a content error at the line that asks for it.
The URL carries a hash of the bytes, so browsers may keep an image for good.
"""

import hashlib
import html
import os
import posixpath
import re
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from markdown_it.token import Token

from app.content.errors import Said, Value

TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
}
MAX_BYTES = 2 * 1024 * 1024


class ImageError(ValueError):
    """Why an image reference cannot be shown."""

    def __init__(self, said: Said) -> None:
        super().__init__(said.message)
        self.said = said

    @classmethod
    def of(cls, code: str, /, **values: Value) -> "ImageError":
        return cls(Said.of(code, **values))


@dataclass(frozen=True)
class Image:
    path: str  # relative to the content root, with forward slashes
    sha: str  # of the bytes, shortened
    # In CSS pixels when the file says (PNG, GIF, JPEG, SVG): lets the page keep the image's
    # place before it has loaded.
    size: tuple[int, int] | None = None

    @property
    def url(self) -> str:
        return f"/media/{quote(self.path)}?v={self.sha}"

    @property
    def media_type(self) -> str:
        return TYPES[posixpath.splitext(self.path)[1].lower()]


def resolve(src: str, source: str) -> str:
    """The content-relative path that `src`, written in the file `source`, names."""
    if urlsplit(src).scheme in ("http", "https"):
        raise ImageError.of("image_on_web", src=src)
    if urlsplit(src).scheme or src.startswith(("/", "\\")) or "\\" in src:
        raise ImageError.of("image_not_relative", src=src)
    path = posixpath.normpath(posixpath.join(posixpath.dirname(source), unquote(src)))
    if path == ".." or path.startswith("../"):
        raise ImageError.of("image_outside", src=src)
    if any(part.startswith(".") for part in path.split("/")):
        raise ImageError.of("image_hidden", src=src)
    return path


def image_names(root: Path) -> dict[str, str]:
    """Every image file under `root` by its name (case-folded), the first by path for a name.

    Obsidian finds `![[name.png]]` wherever the file is in the vault; so does this.
    """
    names: dict[str, str] = {}
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f != "node_modules")
        for name in sorted(files):
            if posixpath.splitext(name)[1].lower() in TYPES:
                rel = Path(folder, name).relative_to(root).as_posix()
                names.setdefault(name.casefold(), rel)
    return names


def load(root: Path, path: str) -> Image:
    """Check the image at content-relative `path` under `root`; raise ImageError."""
    suffix = posixpath.splitext(path)[1].lower()
    if suffix not in TYPES:
        kinds = ", ".join(sorted(TYPES))
        raise ImageError.of("image_type", path=path, kinds=kinds)
    real_root = os.path.realpath(root)
    full = os.path.realpath(os.path.join(real_root, path))
    # A symlink may point anywhere: what counts is where the file really is.
    if os.path.commonpath([full, real_root]) != real_root:
        raise ImageError.of("image_outside", src=path)
    try:
        stat = os.stat(full)
    except OSError:
        raise ImageError.of("image_not_found", path=path) from None
    if not os.path.isfile(full):
        raise ImageError.of("image_not_found", path=path)
    if stat.st_size > MAX_BYTES:
        raise ImageError.of(
            "image_too_large", path=path, size=f"{stat.st_size:,}", limit=f"{MAX_BYTES:,}"
        )
    sha, size = _checked(full, suffix, stat.st_mtime_ns, stat.st_size)
    return Image(path, sha, size)


@lru_cache(maxsize=1024)
def _checked(
    full: str, suffix: str, mtime_ns: int, size: int
) -> tuple[str, tuple[int, int] | None]:
    # Keyed by modification time and size too, so an edited file is read again.
    data = Path(full).read_bytes()
    if not _looks_like(data, suffix):
        raise ImageError.of("image_wrong_kind", name=os.path.basename(full), kind=suffix[1:])
    return hashlib.sha256(data).hexdigest()[:16], _dimensions(data, suffix)


_SVG_SIZE = re.compile(
    rb"<svg\b[^>]*?\bwidth=[\"']([\d.]+)(?:px)?[\"'][^>]*?\bheight=[\"']([\d.]+)"
)


def _dimensions(data: bytes, suffix: str) -> tuple[int, int] | None:
    if suffix == ".png" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if suffix == ".gif" and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])
    if suffix in (".jpg", ".jpeg"):
        return _jpeg_dimensions(data)
    if suffix == ".svg" and (found := _SVG_SIZE.search(data[:4096])):
        return round(float(found[1])), round(float(found[2]))
    return None


def _jpeg_dimensions(data: bytes) -> tuple[int, int] | None:
    # Walk the segments to the first start-of-frame marker, which holds height then width.
    pos = 2
    while pos + 9 < len(data) and data[pos] == 0xFF:
        marker, length = data[pos + 1], struct.unpack(">H", data[pos + 2 : pos + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        pos += 2 + length
    return None


def _looks_like(data: bytes, suffix: str) -> bool:
    if suffix == ".png":
        return data.startswith(b"\x89PNG\r\n\x1a\n")
    if suffix in (".jpg", ".jpeg"):
        return data.startswith(b"\xff\xd8\xff")
    if suffix == ".gif":
        return data.startswith((b"GIF87a", b"GIF89a"))
    if suffix == ".webp":
        return data.startswith(b"RIFF") and data[8:12] == b"WEBP"
    return b"<svg" in data[:4096]


def img_tag(attrs: dict[str, Any]) -> str:
    return "<img " + " ".join(f'{k}="{html.escape(str(v))}"' for k, v in attrs.items()) + ">"


def show_image(token: Token, image: Image, media: dict[str, str]) -> None:
    token.attrSet("src", image.url)
    # Anki keeps media in one flat folder: named by content, so two images never clash.
    name = f"qbank-{image.sha}{PurePosixPath(image.path).suffix.lower()}"
    token.meta["anki_src"] = name
    media[name] = image.path
    if image.size:
        token.attrSet("width", str(image.size[0]))
        token.attrSet("height", str(image.size[1]))
    token.attrSet("loading", "lazy")
    token.attrSet("decoding", "async")


def image_alt(token: Token) -> str:
    """The text an image's Markdown gives in place of it (`![this text](src)`)."""
    return "".join(child.content for child in token.children or []).strip()


def image_stand_in(token: Token, src: str) -> None:
    """An image that cannot be shown: its alt text, or a link for a web image (never fetched)."""
    written = image_alt(token)
    alt = written or src
    if src.startswith(("http://", "https://")):
        markup = (
            f'<a class="image-link" href="{html.escape(src)}" rel="noopener noreferrer">'
            f"{html.escape(alt)}</a>"
        )
    else:
        markup = f'<span class="image-missing" title="{html.escape(src)}">{html.escape(alt)}</span>'
    token.type = "wikilink"  # rendered from meta["html"] by the wikilink rule
    token.meta = {"html": markup, "alt": written}
    token.children = None
