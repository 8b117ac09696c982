"""A formula as text a reader recognises, for search: `\\frac{a}{b}` → `a/b`, `\\beta` → `β`.

pylatexenc's tables say what each macro reads as and how many arguments it takes; the walk over
the formula is a small scanner of our own. pylatexenc's node walker costs ~0.4 ms a formula,
which made it the largest part of an import's work besides KaTeX's; this one ~0.02 ms. The few
macros whose reading pylatexenc computes (accents, `\\mathbb` letters) are handed to it with
their arguments, one small piece at a time, and remembered.
"""

import logging
import re
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any

# (argument kinds: "{" mandatory, "[" optional; what the macro reads as)
_Spec = tuple[str, str | Callable[..., Any] | None]

_SPACE = re.compile(r"\s+")
_ROW_END = re.compile(r" ;")  # a matrix row's last cell ends where its `\\` starts
_NAME = re.compile(r"([A-Za-z]+)\s*|(.)", re.S)
_TEXT = re.compile(r"[^\\{}%&~$\[\]\s]+|\s+")
_BLANKS = " \t\r\n"
# Matrices read as pylatexenc writes them, `[ a b; c d ]`; other environments as their body.
_MATRICES = frozenset(
    {"array", "matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix"}
    | {"smallmatrix", "psmallmatrix", "bsmallmatrix"}
)

# pylatexenc logs what it cannot make of a formula (`\frac` without its arguments); KaTeX
# reports the author's real problems with a line, so those complaints only add noise.
logging.getLogger("pylatexenc").setLevel(logging.CRITICAL)


@lru_cache(maxsize=16_384)  # pools repeat formulas across cards
def readable_math(tex: str) -> str:
    """`tex` as plain text: symbols as their characters, arguments unwrapped, spaces single."""
    return _ROW_END.sub(";", _SPACE.sub(" ", _Walk(tex).until(""))).strip()


@cache
def _specs() -> dict[str, _Spec]:
    """Every macro pylatexenc knows: its arguments (its parser's table) and its reading."""
    from pylatexenc.latex2text import get_default_latex_context_db as reading_table
    from pylatexenc.latexwalker import get_default_latex_context_db as parser_table

    parser = parser_table()
    out: dict[str, _Spec] = {}
    for spec in reading_table().iter_macro_specs():
        parsed = parser.get_macro_spec(spec.macroname)
        argspec = getattr(getattr(parsed, "args_parser", None), "argspec", "") or ""
        reads = spec.simplify_repl
        if reads is None and spec.discard:
            reads = ""
        out[spec.macroname] = (argspec, reads)
    return out


@cache
def _specials() -> tuple[re.Pattern[str], dict[str, str]]:
    """pylatexenc's special characters (`--` → `–`), but `&` and `~`, which the walk reads."""
    from pylatexenc.latex2text import get_default_latex_context_db as reading_table

    reads = {
        spec.specials_chars: spec.simplify_repl
        for spec in reading_table().iter_specials_specs()
        if isinstance(spec.simplify_repl, str) and spec.specials_chars not in ("&", "~")
    }
    longest_first = sorted(reads, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, longest_first))), reads


@lru_cache(maxsize=4096)
def _computed(piece: str) -> str:
    """A macro whose reading pylatexenc computes, with its arguments, read by pylatexenc."""
    try:
        return str(_converter().latex_to_text(piece))
    except Exception:  # pylatexenc is lenient, but content is not ours to trust
        return ""


@cache
def _converter() -> Any:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


class _Walk:
    """A left-to-right reading of one formula; groups and arguments recurse."""

    def __init__(self, tex: str) -> None:
        self.tex = tex
        self.at = 0
        self.matrices = 0  # how many matrices the walk is inside

    def until(self, close: str) -> str:
        """The text up to `close` (consumed) or the end of the formula."""
        tex, parts = self.tex, []
        while self.at < len(tex):
            char = tex[self.at]
            if char == close:
                self.at += 1
                break
            parts.append(self.node())
        return "".join(parts)

    def node(self) -> str:
        tex = self.tex
        char = tex[self.at]
        self.at += 1
        if char == "{":
            return self.until("}")
        if char == "\\":
            return self.macro()
        if char == "%":  # a comment, to the end of its line
            end = tex.find("\n", self.at)
            self.at = len(tex) if end < 0 else end + 1
            return ""
        if char in "&~":
            return " "
        if char == "$":  # a math shift inside math reads as nothing, as pylatexenc has it
            return ""
        if char in "}[]":
            return "" if char == "}" else char
        self.at -= 1
        found = _TEXT.match(tex, self.at)
        assert found is not None  # the text pattern matches any character not handled above
        self.at = found.end()
        pattern, reads = _specials()
        return pattern.sub(lambda special: reads[special.group()], found.group())

    def macro(self) -> str:
        text = self._macro()
        # TeX swallows the space after a macro's name; its reading keeps it (`\\log n`,
        # `a \\cdot b`), and a word is kept apart from the letter after it.
        spaced = self.tex[self.at - 1].isspace()
        word = text[-1:].isalnum() and self.tex[self.at : self.at + 1].isalnum()
        return text + " " if text and (spaced or word) else text

    def _macro(self) -> str:
        start = self.at - 1
        found = _NAME.match(self.tex, self.at)
        if found is None:  # a backslash at the very end
            return ""
        self.at = found.end()
        name = found.group(1) or found.group(2)
        if name in ("begin", "end"):
            return self.environment(name == "begin")
        if name == "\\" and self.matrices:
            return "; "
        argspec, reads = _specs().get(name, ("", ""))
        args = [self._argument_of(kind) for kind in argspec]
        if callable(reads):
            return _computed(self.tex[start : self.at])
        if reads is None:
            return "".join(args)
        if "%" not in reads:
            return reads
        try:
            if "%(" in reads:
                return reads % {str(number): arg for number, arg in enumerate(args, 1)}
            return reads % tuple(args)
        except (TypeError, KeyError, ValueError):
            return " ".join(args)

    def environment(self, begins: bool) -> str:
        if self.argument().strip() not in _MATRICES:
            return " "
        if begins:
            self.matrices += 1
            return "[ "
        self.matrices = max(0, self.matrices - 1)
        return " ]"

    def _argument_of(self, kind: str) -> str:
        if kind == "*":  # a starred form, `\section*`: the star reads as nothing
            if self.tex.startswith("*", self.at):
                self.at += 1
            return ""
        return self.argument() if kind == "{" else self.optional()

    def argument(self) -> str:
        """A mandatory argument: a group, a macro or one character (`\\frac12`)."""
        self._skip_blanks()
        if self.at >= len(self.tex):
            return ""
        char = self.tex[self.at]
        if char == "}":  # the enclosing group ends: the argument is missing
            return ""
        if char in "{\\":
            return self.node()
        self.at += 1
        return char

    def optional(self) -> str:
        self._skip_blanks()
        if self.tex.startswith("[", self.at):
            self.at += 1
            return self.until("]")
        return ""

    def _skip_blanks(self) -> None:
        while self.at < len(self.tex) and self.tex[self.at] in _BLANKS:
            self.at += 1
