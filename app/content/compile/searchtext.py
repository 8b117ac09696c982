"""Search text, the same on every database: readable formulas, field groups, folding.

Matching happens on folded text (NFC, then NFKC + casefold one character at a time), made here
at import and stored, so the database only compares strings it was given: SQLite's `lower()`
folds ASCII only, PostgreSQL's follows its collation, and neither folds `ＧＥＭＭ` to `gemm`.
Folding one character at a time keeps a map from folded positions back to the displayed text,
which is what snippets highlight.
"""

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

# Field groups in ranking order: a match in an earlier group outranks any in a later one.
FIELDS = ("title", "body", "extra", "reading")

_SPACE = re.compile(r"\s+")
# Topic sections by heading: reading lists, and the pitfalls that rank with a card's.
_READING = ("延伸阅读", "接下来读", "继续读", "外部参考", "参考", "阅读", "reading", "references")
_EXTRA = ("易错", "坑", "面试角度", "pitfall", "follow-up", "追问")


def fold(text: str) -> str:
    """`text` as search compares it; queries and stored text go through the same function."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", text).casefold()


@lru_cache(maxsize=16_384)
def _fold_char(char: str) -> str:
    return fold(char)


def fold_with_map(text: str) -> tuple[str, list[int]]:
    """`text` folded one character at a time, and for each folded character its origin in `text`.

    The same as fold(text) but for the rare sequences that compatibility forms compose across
    characters; snippets use it to find and highlight matches in the text as displayed.
    """
    if text.isascii():
        return text.lower(), list(range(len(text)))
    parts = list(map(_fold_char, text))
    folded = "".join(parts)
    if len(folded) == len(text):
        # No character folded to more or fewer than one (none folds to nothing): the map is
        # the identity, as it is for nearly all Chinese and English text.
        return folded, list(range(len(text)))
    origin: list[int] = []
    for index, part in enumerate(parts):
        origin += [index] * len(part)
    return folded, origin


@dataclass(frozen=True)
class SearchFields:
    """The displayed text of each field group; fold each for matching."""

    title: str
    body: str
    extra: str
    reading: str

    def folded(self) -> dict[str, str]:
        return {name: fold(getattr(self, name)) for name in FIELDS}


def section_group(heading: str) -> str:
    """Which field group the text under a level-2 heading of a note belongs to."""
    key = fold(heading)
    if any(word in key for word in _READING):
        return "reading"
    if any(word in key for word in _EXTRA):
        return "extra"
    return "body"


def topic_fields(
    *, title: str, aliases: list[str], summary: str, body: str, extra: str, reading: str
) -> SearchFields:
    """A topic's field groups: title and aliases, summary and body, pitfalls, reading list."""
    return SearchFields(
        title=" · ".join([title, *aliases]),
        body=" ".join(t for t in (summary, body) if t),
        extra=extra,
        reading=reading,
    )
