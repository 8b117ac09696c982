"""A note's bytes as text: UTF-8, UTF-16 or UTF-32 (by byte-order mark, or without one by its
NUL bytes and line breaks), or GB18030; anything else is refused with the line it fails on,
never imported as mojibake."""

import codecs

from app.content.errors import ContentError, ContentWarning
from app.content.notes.invisible import visible

# Longest first: UTF-32 LE's mark begins with UTF-16 LE's.
_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 LE"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 BE"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE"),
)
_WIDE = (
    ("utf-32-le", "UTF-32 LE"),
    ("utf-32-be", "UTF-32 BE"),
    ("utf-16-le", "UTF-16 LE"),
    ("utf-16-be", "UTF-16 BE"),
)


def decode(data: bytes, rel: str, errors: list[ContentError]) -> str | None:
    """The text of a note, or None with the reason added to `errors`.

    Zero-width characters are dropped here (app.content.notes.invisible): every reader of a
    note, the import and its page alike, reads the text without them.
    """
    text = _decode(data, rel, errors)
    return None if text is None else visible(text)


def _decode(data: bytes, rel: str, errors: list[ContentError]) -> str | None:
    for mark, codec, name in _MARKS:
        if data.startswith(mark):
            return _strict(data[len(mark) :], codec, name, rel, errors)
    if b"\0" in data:
        guessed = _guess_wide(data)
        if guessed is None:
            errors.append(ContentError.of("binary", rel, _line(data, data.index(b"\0"))))
            return None
        text, name = guessed
        errors.append(ContentWarning.of("read_without_bom", rel, 1, encoding=name))
        return text
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = exc.start
    try:
        # Notes saved by older Chinese editors are often GBK; GB18030 reads all of it.
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        byte = f"{data[start]:02X}"
        errors.append(ContentError.of("not_utf8", rel, _line(data, start), byte=byte))
        return None
    errors.append(ContentWarning.of("read_as_gb18030", rel, _line(data, start)))
    return text


def _guess_wide(data: bytes) -> tuple[str, str] | None:
    """The text of UTF-16 or UTF-32 without a byte-order mark, and the encoding's name.

    Text has no NUL characters, so a file with NUL bytes is UTF-8 text only if there are few of
    them (stray bytes: refused). Otherwise each wide encoding is tried, and the one whose text
    has the most line breaks wins: read in the wrong byte order or width, a line feed becomes
    another character (0A 00 read big-endian is U+0A00).
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        # Mostly ASCII UTF-16 is valid UTF-8 too, but every other byte of it is NUL.
        if data.count(0) * 10 < len(data):
            return None
    best: tuple[int, str, str] | None = None
    for codec, name in _WIDE:
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if "\0" in text:
            continue
        breaks = text.count("\n") + text.count("\r")
        if breaks and (best is None or breaks > best[0]):
            best = breaks, text, name
    return (best[1], best[2]) if best else None


def _strict(data: bytes, codec: str, name: str, rel: str, errors: list[ContentError]) -> str | None:
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode(codec, errors="replace")
        errors.append(ContentError.of("bom_invalid", rel, before.count("\n") + 1, encoding=name))
        return None


def _line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1
