"""Syntax highlighting of fenced code, once at import, as spans with CSS classes (app.css)."""

from collections.abc import Iterable, Iterator
from functools import cache

from pygments import highlight
from pygments.filter import Filter
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.token import (
    Comment,
    Generic,
    Keyword,
    Name,
    Number,
    Operator,
    String,
    Text,
    is_token_subtype,
)
from pygments.token import _TokenType as TokenType
from pygments.util import ClassNotFound

# Fence names Pygments does not know, mapped to the lexer that reads them best.
ALIASES = {"triton": "python", "cute": "python", "cutlass": "cpp", "nvcc": "bash"}

# The few token kinds that get a colour, most specific first; every other token is plain text
# with no span, which keeps the stored HTML small (a span per name and bracket doubles it).
_PALETTE: tuple[tuple[TokenType, TokenType], ...] = (
    (Keyword.Type, Keyword.Type),
    (Keyword, Keyword),
    (Operator.Word, Keyword),
    (Name.Builtin, Name.Builtin),
    (Name.Function, Name.Function),
    (Name.Class, Name.Function),
    (Name.Decorator, Name.Decorator),
    (Comment.Preproc, Comment.Preproc),
    (Comment.PreprocFile, Comment.Preproc),
    (Comment, Comment),
    (String, String),
    (Number, Number),
    (Generic.Prompt, Generic.Prompt),
)

# Class names such as `hl-k` (keyword) cannot clash with the page's own classes.
_FORMATTER = HtmlFormatter(nowrap=True, classprefix="hl-")


class _Palette(Filter):
    def filter(
        self, lexer: Lexer | None, stream: Iterable[tuple[TokenType, str]]
    ) -> Iterator[tuple[TokenType, str]]:
        for ttype, value in stream:
            yield (
                next((kind for group, kind in _PALETTE if is_token_subtype(ttype, group)), Text),
                value,
            )


@cache
def _lexer(name: str) -> Lexer | None:
    try:
        lexer = get_lexer_by_name(ALIASES.get(name, name), stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None
    lexer.add_filter(_Palette())
    return lexer


def highlight_code(code: str, lang: str, attrs: str) -> str:
    """Return `code` as highlighted HTML, or "" to let markdown-it escape it as plain text."""
    lexer = _lexer(lang.strip().lower()) if lang else None
    if lexer is None:
        return ""
    return highlight(code, lexer, _FORMATTER)
