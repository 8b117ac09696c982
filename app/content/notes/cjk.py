"""CJK-friendly emphasis for markdown-it: `**强调（注）**后` is bold, as Chinese writers expect.

CommonMark decides whether `*` or `_` can open or close emphasis from the characters on either
side (its "flanking" rules), and counts full-width punctuation such as `（）。，` like ASCII
punctuation, so a run that closes after `）` and is followed by a Han character is taken as
literal asterisks. This follows the CommonMark CJK-friendly amendments
(tats-u/markdown-cjk-friendly, the rule of markdown-it-cjk-friendly): punctuation that is itself
a CJK character no longer blocks flanking, and a CJK character on the outer side counts like
whitespace. Text without CJK characters parses exactly as CommonMark says.
"""

import unicodedata
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import isMdAsciiPunct, isPunctChar, isWhiteSpace
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Delimiter

# Variation selectors change a glyph, not its class: look through them to the character before.
_VARIATION_SELECTORS = range(0xFE00, 0xFE0F)  # U+FE0F (emoji presentation) excluded
_IDEOGRAPHIC_VARIATION_SELECTORS = range(0xE0100, 0xE01F0)
_HANGUL = (
    range(0x1100, 0x1200),
    range(0x3130, 0x3190),
    range(0xA960, 0xA980),
    range(0xAC00, 0xD7B0),
)
# Wide emoji (🙂, ⌚) are not CJK text; approximated by the emoji and symbol blocks.
_EMOJI = (range(0x1F000, 0x1FB00), range(0x2300, 0x2C00))


@lru_cache(maxsize=4096)  # emphasis stands next to the same few hundred characters
def is_cjk(char: str) -> bool:
    """Whether `char` is a CJK character: East Asian wide, full-width or half-width, or Hangul."""
    code = ord(char)
    if any(code in block for block in _HANGUL):
        return True
    if unicodedata.east_asian_width(char) not in ("W", "F", "H"):
        return False
    return not any(code in block for block in _EMOJI)


@lru_cache(maxsize=4096)
def _is_punct(char: str) -> bool:
    return isMdAsciiPunct(ord(char)) or isPunctChar(char)


def _char_before(src: str, start: int) -> str:
    pos = start - 1
    if pos >= 0 and ord(src[pos]) in _IDEOGRAPHIC_VARIATION_SELECTORS:
        return "\u3400"  # only ideographs take these: any CJK ideograph classifies the same
    if pos >= 0 and ord(src[pos]) in _VARIATION_SELECTORS:
        pos -= 1
    return src[pos] if pos >= 0 else " "


def scan_delims(state: StateInline, start: int, can_split_word: bool) -> tuple[bool, bool, int]:
    """Like StateInline.scanDelims, with the CJK-friendly flanking rules."""
    src, pos, marker = state.src, start, state.src[start]
    while pos < state.posMax and src[pos] == marker:
        pos += 1
    last = _char_before(src, start)
    following = src[pos] if pos < state.posMax else " "

    last_space, next_space = isWhiteSpace(ord(last)), isWhiteSpace(ord(following))
    last_punct, next_punct = _is_punct(last), _is_punct(following)
    last_cjk, next_cjk = is_cjk(last), is_cjk(following)
    left = not next_space and (
        not (next_punct and not next_cjk) or last_space or last_punct or last_cjk
    )
    right = not last_space and (
        not (last_punct and not last_cjk) or next_space or next_punct or next_cjk
    )
    can_open = left and (can_split_word or not right or last_punct)
    can_close = right and (can_split_word or not left or next_punct)
    return can_open, can_close, pos - start


def _emphasis(state: StateInline, silent: bool) -> bool:
    # markdown-it's own emphasis tokenizer, calling scan_delims instead of state.scanDelims.
    marker = state.src[state.pos]
    if silent or marker not in ("_", "*"):
        return False
    can_open, can_close, length = scan_delims(state, state.pos, marker == "*")
    for _ in range(length):
        token = state.push("text", "", 0)
        token.content = marker
        state.delimiters.append(
            Delimiter(
                marker=ord(marker),
                length=length,
                token=len(state.tokens) - 1,
                end=-1,
                open=can_open,
                close=can_close,
            )
        )
    state.pos += length
    return True


def cjk_emphasis_plugin(md: MarkdownIt) -> None:
    """Make `*` and `_` emphasis CJK-friendly (strikethrough and the rest are unchanged)."""
    md.inline.ruler.at("emphasis", _emphasis)
