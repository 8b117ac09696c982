"""Find content files and hash them."""

import errno
import hashlib
import os
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from app.content.errors import ContentError, Said
from app.content.notes.encoding import decode
from app.content.notes.named import named_folder

NOTE_SUFFIXES = (".md", ".markdown", ".txt")
# Folders of tools, not notes: version control, editors' settings, dependencies, caches.
SKIPPED_FOLDERS = {"node_modules", "__pycache__", "site-packages", "venv"}
# Part of every file's hash: raise it when the same Markdown starts rendering to different HTML
# (new syntax, highlighting, images), so that the next import renders every file again.
RENDERING = 8
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
    # The file's size and modification time when it was read; '' when not to be trusted.
    stamp: str = ""
    # In a folder of notes each named as its question (app.content.notes.named.named_folder).
    named: bool = False


# A file modified this recently may be modified again within the clock's resolution without
# its stamp changing, so its stamp is not kept (git's "racy" files).
RACY_SECONDS = 2.0


def _reading(named: bool) -> str:
    """How a file is read, part of its stamp and its hash: the rendering, and whether its
    folder names its notes as questions."""
    return f"{RENDERING}n" if named else str(RENDERING)


def stamp(info: os.stat_result, named: bool = False) -> str:
    """What says a file is as it was: its size and modification time, and how we read it."""
    return f"{_reading(named)}:{info.st_size}:{info.st_mtime_ns}"


def _named_folders(files: list[tuple[str, str]]) -> set[str]:
    """The folders (as path prefixes) whose notes are each named as the question they answer."""
    names: dict[str, list[str]] = {}
    for rel, _ in files:
        folder, _, file = rel.rpartition("/")
        names.setdefault(folder, []).append(file.rpartition(".")[0] or file)
    return {folder for folder, stems in names.items() if named_folder(stems)}


def scan(
    root: Path, known: Mapping[str, tuple[str, str]] | None = None
) -> tuple[list[SourceText], list[ContentError]]:
    """Read every note under `root` (any depth), sorted by path.

    `known` maps a path to the stamp and hash it was last imported with: a file whose stamp
    is unchanged is not read again, and comes back with that hash and no text.

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
    racy = time.time_ns() - int(RACY_SECONDS * 1e9)
    files = _note_files(root, real_root, errors)
    named_folders = set() if house else _named_folders(files)
    for rel, on_disk in files:
        reading, in_decks = house and rel.startswith("topics/"), house and rel.startswith("decks/")
        named = rel.rpartition("/")[0] in named_folders
        last = (known or {}).get(rel)
        if last and last[0] and _stamp_of(on_disk, named) == last[0]:
            sources.append(SourceText(rel, last[1], "", reading, in_decks, last[0], named))
            continue
        read = _read(Path(on_disk), real_root)
        if isinstance(read, Said):
            errors.append(ContentError(rel, 0, read))
            continue
        data, info = read
        problems = len(errors)
        text = decode(data, rel, errors)
        if text is None:
            continue
        digest = hashlib.sha256(b"%b\0%b" % (_reading(named).encode(), data)).hexdigest()
        # A file read with a warning is read again each time, so that each report has it.
        trusted = info.st_mtime_ns < racy and len(errors) == problems
        kept = stamp(info, named) if trusted else ""
        sources.append(SourceText(rel, digest, text, reading, in_decks, kept, named))
    if not sources and not errors:
        errors.append(ContentError.of("no_notes", str(root), 0))
    return sources, errors


def _note_files(root: Path, real_root: Path, errors: list[ContentError]) -> list[tuple[str, str]]:
    """Every note's path from the root (forward slashes) and on disk, sorted by the former.

    Strings rather than Paths: a vault's tens of thousands of files spend more in pathlib than
    in the system calls when nothing changed.
    """
    found: list[tuple[str, str]] = []
    top = str(root)
    for folder, folders, files in os.walk(root):
        here = Path(folder)
        relative = os.path.relpath(folder, top)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
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
            (prefix + name, folder + os.sep + name)
            for name in files
            if name.lower().endswith(NOTE_SUFFIXES) and not name.startswith(".")
        ]
    return sorted(found)


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


def _stamp_of(file: str, named: bool) -> str | None:
    """The stamp of a regular file, else None: a symbolic link is always read and checked."""
    try:
        info = os.lstat(file)
    except OSError:
        return None
    return stamp(info, named) if stat.S_ISREG(info.st_mode) else None


def _read(file: Path, real_root: Path) -> tuple[bytes, os.stat_result] | Said:
    """The file's bytes and what `stat` said of it, or why it is not read."""
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
    return data, info


def read_note(file: Path, real_root: Path, rel: str) -> str | None:
    """One note's text, read and decoded as an import reads it; None when it cannot be."""
    read = _read(file, real_root)
    return decode(read[0], rel, []) if isinstance(read, tuple) else None
