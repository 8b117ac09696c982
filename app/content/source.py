"""Find content files and hash them."""

import hashlib
from dataclasses import dataclass
from pathlib import Path

from app.content.errors import ContentError

KINDS = {"decks": "deck", "topics": "topic"}
# Part of every file's hash: raise it when the same Markdown starts rendering to different HTML
# (new syntax, highlighting, images), so that the next import renders every file again.
RENDERING = 3


@dataclass(frozen=True)
class SourceText:
    path: str  # relative to the content root, with forward slashes
    kind: str  # deck | topic
    sha256: str
    text: str


def scan(root: Path) -> tuple[list[SourceText], list[ContentError]]:
    """Read every deck and topic file under `root`, sorted by path."""
    errors: list[ContentError] = []
    if not root.is_dir():
        return [], [ContentError(str(root), 0, "content directory does not exist")]
    sources: list[SourceText] = []
    for folder, kind in KINDS.items():
        for file in sorted((root / folder).glob("*.md")):
            rel = file.relative_to(root).as_posix()
            data = file.read_bytes()
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                line = data[: exc.start].count(b"\n") + 1
                errors.append(ContentError(rel, line, "file is not valid UTF-8"))
                continue
            digest = hashlib.sha256(b"%d\0%b" % (RENDERING, data)).hexdigest()
            sources.append(SourceText(rel, kind, digest, text))
    if not sources and not errors:
        errors.append(ContentError(str(root), 0, "no decks/*.md or topics/*.md files found"))
    return sources, errors
