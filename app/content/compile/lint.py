"""Warnings for Markdown left literal, and for formulas whose TeX escapes were eaten on the way
into a file.

A backslash followed by a letter that some tool reads as an escape (`\\r`, `\\t`, `\\f`, `\\n`,
`\\b`, `\\v`, `\\a`) turns `\\rfloor` into a line break and "floor", `\\frac` into a form feed and
"rac". KaTeX accepts the leftover letters, so the formula renders wrongly without an error; these
checks find what is left behind: control characters, inline math broken over two lines, and
math text that starts with the tail of a well-known command.
"""

import re
from bisect import bisect_left
from dataclasses import dataclass

from app.content.errors import Said

# Markup that should never survive into rendered text: an emphasis that did not open or close,
# or a `$` that opened no formula. `$` before a digit is a price, never math, so it is fine.
_LITERAL_MARKUP = re.compile(r"\*\*|__|\$(?!\d)")
# An identifier as code spells one: ASCII (`**没闭合` is bold that failed, not a name).
_IDENTIFIER_START = re.compile(r"[A-Za-z_]")
# What could close a `__` run: one not followed by a letter or digit.
_CLOSING_UNDERSCORES = re.compile(r"__(?![^\W_])")


def literal_markers(text: str) -> list[str]:
    """The markers left literal in one run of rendered `text`, each once, in order."""
    if "$" not in text and "**" not in text and "__" not in text:
        return []  # as most runs are: no regex needs to read them
    # Where the last marker that could close each kind starts, found once: a marker is closed
    # later in the run if that is after it (not searched again per marker: quadratic).
    closers = [match.start() for match in _CLOSING_UNDERSCORES.finditer(text)]
    last = {"**": text.rfind("**"), "__": closers[-1] if closers else -1}
    markers: dict[str, None] = {}
    for match in _LITERAL_MARKUP.finditer(text):
        marker, end = match.group(), match.end()
        # A name the author meant as written (`**kwargs`, `__fun`, `_Box__fun`): an ASCII
        # identifier follows at once, and nothing after it in the run could close it.
        # `**bold **` that failed to close, or `**粗体` against CJK text, still warn.
        named = marker != "$" and _IDENTIFIER_START.match(text, end) and last[marker] < end
        if not named:
            markers[marker] = None
    return list(markers)


# The tail a command leaves when its escape letter is eaten (`\rightarrow` → `ightarrow`),
# keyed by the tail. Tails that are ordinary English words or one or two letters ("ar", "au",
# "angle", "mod") are left out: they would be flagged in prose-like math, and their eaten escape
# leaves a control character that is caught anyway.
EATEN_TAILS: dict[str, str] = {
    "rac": r"\frac",
    "ext": r"\text",
    "extbf": r"\textbf",
    "extrm": r"\textrm",
    "imes": r"\times",
    "ilde": r"\tilde",
    "heta": r"\theta",
    "ightarrow": r"\rightarrow",
    "ight": r"\right",
    "floor": r"\rfloor",
    "ceil": r"\rceil",
    "eq": r"\neq",
    "abla": r"\nabla",
    "eft": r"\left",
    "eta": r"\beta",
    "egin": r"\begin",
    "oldsymbol": r"\boldsymbol",
    "ec": r"\vec",
    "arepsilon": r"\varepsilon",
    "lpha": r"\alpha",
    "pprox": r"\approx",
}

# Unicode's control characters (category Cc), the line break among them.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

# Tails of commands that take an argument count only with their brace: `rac{`, `ext{`.
BRACED_TAILS = frozenset({"rac", "ext", "extbf", "extrm"})
# A tail counts only as a whole word (no letter after it) at the start of the formula, of a line
# or of a whitespace-separated run: `x_{eq}`, `\text{left}` and `weight` are not eaten commands.
_TAIL = re.compile(
    r"(?:^|(?<=[\s\x00-\x1f\x7f]))(" + "|".join(sorted(EATEN_TAILS, key=len, reverse=True)) + r")"
    r"(?![A-Za-z])"
)
# Arguments set as text, not math: their words are prose and never eaten commands.
_TEXT_ARGUMENT = re.compile(
    r"\\(?:text(?:bf|it|rm|sf|tt|normal)?|math(?:rm|it|bf|sf|tt)|operatorname\*?|mbox)\s*"
    r"\{[^{}]*\}"
)


@dataclass(frozen=True)
class FormulaWarning:
    """One problem in a formula, `offset` line breaks after the formula's first line."""

    offset: int
    said: Said

    @property
    def message(self) -> str:
        return self.said.message


def _is_layout_tab(tex: str, index: int, indents: bool) -> bool:
    """Whether the tab at `index` indents its line (`indents`) or is not followed by a letter."""
    # An eaten `\t` (\times, \text, \tau, \theta, \to) leaves the command's letters right
    # after it; at the start of a line the command tails below still catch the usual ones.
    return indents or not tex[index + 1 : index + 2].isalpha()


def formula_warnings(tex: str, *, inline: bool) -> list[FormulaWarning]:
    """Find eaten escapes in the TeX of one formula; `inline` for `$…$` math."""
    warnings: list[FormulaWarning] = []
    # Only control characters matter here: the walk visits them, not every character of the
    # formula. Kept as it goes, not read again from the line's start at each one (quadratic
    # in a long line): the line breaks so far, whether the line is blank, and up to where.
    breaks: list[int] = []
    blank, seen = True, 0
    for match in _CONTROL.finditer(tex):
        index, char = match.start(), match.group()
        if char == "\n":
            breaks.append(index)
            blank, seen = True, index + 1
            continue
        if blank and index > seen:
            blank = tex[seen:index].isspace()
        if not (char == "\t" and _is_layout_tab(tex, index, blank)):
            said = Said.of("formula_control_char", char=f"{ord(char):04X}")
            warnings.append(FormulaWarning(len(breaks), said))
        blank, seen = blank and char.isspace(), index + 1
    if inline and "\n" in tex.strip():
        warnings.append(FormulaWarning(0, Said.of("formula_spans_lines")))
    prose = _TEXT_ARGUMENT.sub(lambda match: " " * len(match.group()), tex)
    for match in _TAIL.finditer(prose):
        tail = match.group(1)
        if tail in BRACED_TAILS and not prose.startswith("{", match.end()):
            continue
        said = Said.of("formula_eaten_backslash", tail=tail, meant=EATEN_TAILS[tail])
        warnings.append(FormulaWarning(bisect_left(breaks, match.start()), said))
    return warnings
