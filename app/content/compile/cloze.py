"""A cloze card's forms: its front, its back and its Anki text, each from one render of the block.

The block's text keeps its deletions in the normal form of app.content.notes.cloze. For card N,
its own deletions become a blank on the front (`[…]`, or `[hint]`) and a marked answer on the
back; every other deletion is its text. In prose, a blank and a marked answer are a span the
page styles (`cloze-blank`, `cloze-answer`), put in after rendering in place of two private-use
characters that Markdown passes through untouched. Inside a formula they are TeX, so KaTeX
renders them with the rest of it and no HTML has to be spliced into KaTeX's markup: a blank is
`\\boxed{[\\ldots]}` (`\\boxed{\\text{[hint]}}`), a marked answer `\\boxed{answer}`.
The Anki text keeps the card's own deletions as Anki writes them (`{{c1::answer::hint}}`, also
inside `\\(…\\)`, which Anki's MathJax understands) and fills in the others.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from app.content.compile.render import Rendered
from app.content.notes.cloze import ELLIPSIS, deletions

# Private-use characters: no note means them, and Markdown leaves them where they are.
_BLANK = ("\ue000", "\ue001")
_ANSWER = ("\ue002", "\ue003")
_SPANS = {
    _BLANK[0]: '<span class="cloze-blank">',
    _ANSWER[0]: '<span class="cloze-answer">',
    _BLANK[1]: "</span>",
    _ANSWER[1]: "</span>",
}
_SENTINEL = re.compile("[\ue000-\ue003]")
# Formulas as the note writes them. A formula's text cannot hold the mark that would close it,
# so no search scans past the next one: linear however many unclosed marks a block holds.
_MATH = re.compile(
    r"\$\$[^$]+\$\$|(?<![\\$])\$(?!\s)[^$]+?(?<![\s\\])\$"
    r"|\\\((?:[^\\]|\\(?![()]))*\\\)|\\\[(?:[^\\]|\\(?![\[\]]))*\\\]"
)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]{}<>#+!|~$-])")
_TEX_SPECIAL = re.compile(r"([\\{}$&#^_%~])")


@dataclass(frozen=True)
class ClozeForms:
    front: Rendered  # html: the block with the card's deletions blank; text: the same, plain
    back: Rendered  # the block with the card's deletions marked
    anki: str  # the Text field of Anki's Cloze note type


def cloze_forms(text: str, number: int, render: Callable[[str], Rendered]) -> ClozeForms:
    """Render card `number` of the block `text`: front, back, and the Anki text."""
    text = _SENTINEL.sub("", text)  # a note's own private-use characters would open spans
    front = _finish(render(_side(text, number, front=True)))
    back = _finish(render(_side(text, number, front=False)))
    return ClozeForms(front, back, render(_anki(text, number)).anki)


def _math_spans(text: str) -> list[tuple[int, int]]:
    return [(match.start(), match.end()) for match in _MATH.finditer(text)]


def _side(text: str, number: int, *, front: bool) -> str:
    spans = _math_spans(text)
    out, position = [], 0
    for item in deletions(text):
        out.append(text[position : item.start])
        position = item.end
        if item.number != number:
            out.append(item.answer)
            continue
        in_math = any(a < item.start < b for a, b in spans)
        label = f"[{item.hint or ELLIPSIS}]"
        if in_math:
            if front:
                blank = r"[\ldots]" if not item.hint else r"\text{" + _tex(label) + "}"
                out.append(r"\boxed{" + blank + "}")
            else:
                out.append(r"\boxed{" + item.answer + "}")
        elif front:
            out.append(_BLANK[0] + _MD_SPECIAL.sub(r"\\\1", label) + _BLANK[1])
        else:
            out.append(_ANSWER[0] + item.answer + _ANSWER[1])
    out.append(text[position:])
    return "".join(out)


def _anki(text: str, number: int) -> str:
    out, position = [], 0
    for item in deletions(text):
        out.append(text[position : item.start])
        position = item.end
        if item.number != number:
            out.append(item.answer)
            continue
        # Anki ends a deletion at the first `}}`: a formula's own closing brace needs a space.
        answer = item.answer + (" " if item.answer.endswith("}") else "")
        hint = f"::{item.hint}" if item.hint else ""
        out.append(f"{{{{c1::{answer}{hint}}}}}")
    out.append(text[position:])
    return "".join(out)


def _tex(text: str) -> str:
    return _TEX_SPECIAL.sub(lambda m: "\\" + m.group(1) if m.group(1) in "{}$&#_%" else " ", text)


def _finish(rendered: Rendered) -> Rendered:
    """`rendered` with the private-use marks as the spans they stand for (none in plain text)."""
    rendered.html = _SENTINEL.sub(lambda m: _SPANS[m.group(0)], rendered.html)
    rendered.text = _SENTINEL.sub("", rendered.text)
    rendered.anki = _SENTINEL.sub("", rendered.anki)
    return rendered
