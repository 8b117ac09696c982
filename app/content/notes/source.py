"""Find content files and hash them."""

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from app.content.errors import ContentError, ContentWarning, Said

NOTE_SUFFIXES = (".md", ".markdown", ".txt")
# Folders of tools, not notes: version control, editors' settings, dependencies, caches.
SKIPPED_FOLDERS = {"node_modules", "__pycache__", "site-packages", "venv"}
# Part of every file's hash: raise it when the same Markdown starts rendering to different HTML
# (new syntax, highlighting, images), so that the next import renders every file again.
RENDERING = 4
# A deck of a few hundred cards is ~200 KB; past this a file is a mistake or an attack.
MAX_FILE_BYTES = 4 * 2**20


@dataclass(frozen=True)
class SourceText:
    path: str  # relative to the content root, with forward slashes
    sha256: str
    text: str
    # In the house layout (`decks/` beside `topics/`), a note under `topics/` is a reading page
    # and one under `decks/` is read by the house format's rules.
    reading: bool = False
    house: bool = False


def scan(root: Path) -> tuple[list[SourceText], list[ContentError]]:
    """Read every note under `root` (any depth), sorted by path.

    The tree may be someone else's (a shared checkout, a mounted volume): a file is read only
    if it is a regular file inside the root and of a sane size. Anything else is a problem that
    names it: a symlink leading out of the root could import a private file into the bank, and
    a FIFO would block the reader forever. Hidden folders (`.git`, `.obsidian`) and tool
    folders (`node_modules`) are not notes and are not entered.
    """
    errors: list[ContentError] = []
    if not root.is_dir():
        return [], [ContentError.of("content_dir_missing", str(root), 0)]
    real_root = Path(os.path.realpath(root))
    sources: list[SourceText] = []
    house = (root / "decks").is_dir() and (root / "topics").is_dir()
    for file in _note_files(root, real_root, errors):
        rel = file.relative_to(root).as_posix()
        data = _read(file, real_root)
        if isinstance(data, Said):
            errors.append(ContentError(rel, 0, data))
            continue
        text = _decode(data, rel, errors)
        if text is None:
            continue
        digest = hashlib.sha256(b"%d\0%b" % (RENDERING, data)).hexdigest()
        reading = house and rel.startswith("topics/")
        sources.append(SourceText(rel, digest, text, reading, house and rel.startswith("decks/")))
    if not sources and not errors:
        errors.append(ContentError.of("no_notes", str(root), 0))
    return sources, errors


def _note_files(root: Path, real_root: Path, errors: list[ContentError]) -> list[Path]:
    found: list[Path] = []
    for folder, folders, files in os.walk(root):
        here = Path(folder)
        kept = []
        for name in sorted(folders):
            if name.startswith(".") or name in SKIPPED_FOLDERS:
                continue
            problem = _outside(here / name, real_root)
            if problem:
                errors.append(ContentError((here / name).relative_to(root).as_posix(), 0, problem))
                continue
            kept.append(name)
        folders[:] = kept
        found += [
            here / name
            for name in files
            if name.lower().endswith(NOTE_SUFFIXES) and not name.startswith(".")
        ]
    return sorted(found, key=lambda file: file.relative_to(root).as_posix())


def _decode(data: bytes, rel: str, errors: list[ContentError]) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
    try:
        # Notes saved by older Chinese editors are often GBK; GB18030 reads all of it.
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        errors.append(ContentError.of("not_utf8", rel, line))
        return None
    errors.append(ContentWarning.of("read_as_gb18030", rel, line))
    return text


def _outside(path: Path, real_root: Path) -> Said | None:
    """Why `path` must not be followed (a symlink loop, or leading out of the root), or None."""
    if not path.is_symlink():
        return None
    try:
        target = path.resolve(strict=True)
    except RuntimeError:
        return Said.of("symlink_loop")
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return Said.of("symlink_loop")
        return Said.of("symlink_dangling")
    if not target.is_relative_to(real_root):
        return Said.of("symlink_outside", target=str(target))
    return None


def _read(file: Path, real_root: Path) -> bytes | Said:
    """The file's bytes, or why it is not read."""
    problem = _outside(file, real_root)
    if problem:
        return problem
    try:
        info = file.stat()
    except OSError as exc:
        return Said.of("unreadable", reason=str(exc.strerror))
    if stat.S_ISDIR(info.st_mode):
        return Said.of("is_directory")
    if not stat.S_ISREG(info.st_mode):
        return Said.of("not_regular")
    if info.st_size > MAX_FILE_BYTES:
        return Said.of("file_too_large", megabytes=MAX_FILE_BYTES // 2**20)
    try:
        # O_NONBLOCK: should the file turn into a FIFO after the check, opening it cannot hang.
        descriptor = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(descriptor, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return Said.of("unreadable", reason=str(exc.strerror))
    if len(data) > MAX_FILE_BYTES:
        return Said.of("file_too_large", megabytes=MAX_FILE_BYTES // 2**20)
    return data


def read_note(file: Path, real_root: Path, rel: str) -> str | None:
    """One note's text, read and decoded as an import reads it; None when it cannot be."""
    data = _read(file, real_root)
    return _decode(data, rel, []) if isinstance(data, bytes) else None
