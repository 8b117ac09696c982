"""Turn KaTeX's rendered HTML back into TeX between MathJax delimiters."""

import html
import re
from collections.abc import Callable

# pykatex writes exactly these wrappers; "katex-mathml" and "katex-html" inside them do not match.
_KATEX_OPEN = re.compile(r'<span class="katex(-display)?">')
_SPAN_TAG = re.compile(r"<span\b[^>]*>|</span>")
_ANNOTATION = re.compile(r'<annotation encoding="application/x-tex">(.*?)</annotation>', re.DOTALL)


def _span_end(fragment: str, start: int) -> int | None:
    """The index just past the </span> that closes the <span> opening at `start`."""
    depth = 0
    for tag in _SPAN_TAG.finditer(fragment, start):
        depth += -1 if tag.group().startswith("</") else 1
        if depth == 0:
            return tag.end()
    return None


def map_katex(fragment: str, replace: Callable[[str, bool], str]) -> tuple[str, int]:
    """Replace every KaTeX formula in `fragment` by `replace(tex, display)`; return the count.

    The TeX is the formula's source, unescaped; what `replace` returns goes in as it is.
    """
    out: list[str] = []
    pos = converted = 0
    while (found := _KATEX_OPEN.search(fragment, pos)) is not None:
        end = _span_end(fragment, found.start())
        annotation = _ANNOTATION.search(fragment, found.end(), end) if end else None
        if end is None or annotation is None:
            # Not KaTeX output as we know it: keep it untouched rather than lose content.
            out.append(fragment[pos : found.end()])
            pos = found.end()
            continue
        tex = html.unescape(annotation.group(1)).strip()
        out.append(fragment[pos : found.start()] + replace(tex, bool(found.group(1))))
        pos = end
        converted += 1
    out.append(fragment[pos:])
    return "".join(out), converted


def _delimited(tex: str, display: bool) -> str:
    opening, closing = (r"\[", r"\]") if display else (r"\(", r"\)")
    return opening + html.escape(tex, quote=False) + closing


def katex_to_tex(fragment: str) -> tuple[str, int]:
    """Replace every KaTeX formula in `fragment` by `\\(TeX\\)` or `\\[TeX\\]`; return the count."""
    return map_katex(fragment, _delimited)
