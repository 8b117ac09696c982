"""Characters that show nothing: dropped from a note's text as it is read, before the parse.

A zero-width space pasted from a web page (`XGBoost\\u200b为什么快？`) is invisible on the card
but not to search, to a card's id or to a reader comparing two questions. Dropped here, before
the one parse, the question's plain text, its rendered HTML and its search text all read the
same text, and the lines keep their numbers.
"""

import re
import unicodedata

# Zero-width space, zero-width non-joiner and joiner, word joiner, a byte-order mark in the
# middle of a text (two files joined into one).
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
# One opening a line hides the indentation after it from Markdown: `\u200b\t综上所述…` reads
# as a paragraph, and would read as code without it, so the indentation goes with it.
_OPENING = re.compile("^([ \t]*)[\u200b\u200c\u200d\u2060\ufeff]+[ \t]*", re.M)
_JOINERS = frozenset("\u200c\u200d")
# Scripts whose letters a joiner shapes (Arabic and Persian, the Indic conjuncts, Mongolian):
# there the joiners change what a word looks like, so they stay.
_SHAPED = (
    (0x0600, 0x08FF),
    (0x0900, 0x0DFF),
    (0x1800, 0x18AF),
    (0xFB50, 0xFDFF),
    (0xFE70, 0xFEFE),
)


def visible(text: str) -> str:
    """`text` without the zero-width characters that join or show nothing."""
    if _ZERO_WIDTH.search(text) is None:
        return text
    text = _OPENING.sub(r"\1", text)
    return _ZERO_WIDTH.sub(lambda match: _kept(text, match.start()), text)


def _kept(text: str, at: int) -> str:
    char = text[at]
    if char not in _JOINERS or at == 0 or at + 1 == len(text):
        return ""
    before, after = text[at - 1], text[at + 1]
    if any(low <= ord(before) <= high for low, high in _SHAPED):
        return char
    # 👩‍💻 is one emoji: a joiner between two pictographs (the first maybe with its U+FE0F).
    if char == "\u200d" and _pictograph(after) and (_pictograph(before) or before == "\ufe0f"):
        return char
    return ""


def _pictograph(char: str) -> bool:
    # Symbols (So) and the skin-tone modifiers (Sk) that emoji sequences are made of.
    return unicodedata.category(char) in ("So", "Sk")
