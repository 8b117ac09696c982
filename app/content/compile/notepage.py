"""A note as its own read-only page: the file found safely inside the notes folder, rendered block
by block with the lines each block spans, so that `#L<line>` lands on (and marks) a card's lines.

Only a note file inside the notes folder is ever read: no `..`, no absolute path, no symlink
that leads out, nothing but .md/.markdown/.txt; anything else is as absent as a missing file.
"""

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from app.content.compile.render import Renderer
from app.content.names import NOTE_SUFFIXES
from app.content.notes.cloze import cloze_mode, strip
from app.content.notes.frontmatter import split_front_matter
from app.content.notes.outline import build_outline
from app.content.notes.source import read_note


@dataclass(frozen=True)
class NoteBlock:
    first: int  # 1-based file lines
    last: int
    html: str


@dataclass(frozen=True)
class NotePage:
    path: str  # relative to the notes folder, with '/'
    file: Path  # the file, resolved
    title: str
    blocks: list[NoteBlock]


def note_file(root: Path, path: str) -> Path | None:
    """The note `path` names inside `root`, or None when it is not one there."""
    if not path or "\\" in path or "\x00" in path:
        return None
    relative = PurePosixPath(path)
    if relative.is_absolute() or any(part in ("..", ".", "") for part in path.split("/")):
        return None
    if not relative.name.lower().endswith(NOTE_SUFFIXES):
        return None
    try:
        real_root = root.resolve(strict=True)
        # Every symlink on the way is followed: where the file really is decides.
        file = (real_root / relative).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not file.is_relative_to(real_root) or not file.is_file():
        return None
    return file


def note_page(root: Path, path: str) -> NotePage | None:
    """The note `path` of the notes folder `root`, rendered by blocks; None when there is none."""
    file = note_file(root, path)
    if file is None:
        return None
    text = read_note(file, root.resolve(), path)
    if text is None:
        return None
    meta, lines, first = split_front_matter(path, text, [])
    mode = cloze_mode(meta, path, [])
    lines = [strip(line, mode) for line in lines]
    outline = build_outline(lines)
    renderer = Renderer(root)
    marks = sorted(
        [(b.start, b.end) for b in outline.blocks] + [(h.line, h.end) for h in outline.headings]
    )
    blocks = []
    for start, end in marks:
        body = "\n".join(lines[start:end])
        rendered = renderer.render(body, path=path, line=first + start, errors=[])
        blocks.append(NoteBlock(first + start, first + end - 1, rendered.html))
    title = str(meta.get("title") or PurePosixPath(path).stem)
    return NotePage(path, file, title, blocks)


def editor_url(template: str, *, root: Path, page: NotePage, line: int) -> str:
    """The learner's editor link from `template` ({abspath}, {path}, {line}, {vault})."""
    values = {
        "abspath": quote(page.file.as_posix(), safe="/:"),
        "path": quote(page.path, safe="/"),
        "line": str(line),
        "vault": quote(root.resolve().name, safe=""),
    }
    return template.format_map(values)
