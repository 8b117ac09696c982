"""Raw HTML in notes, made safe: formatting tags kept bare, images and links checked, the rest text.

People's notes carry `<br>`, `<b>`, `<img src=… width=…>`, `<details>` and `<a href=…>`. Each
tag is kept only in a fixed form with no attribute of the author's (so no script, style or
event handler can pass); an image goes through the same checks as a Markdown one; anything
else shows as the text it is.
"""

import html
import re
from collections.abc import Callable

# Formatting that cannot carry behaviour once its attributes are gone.
_KEPT = {
    "b", "strong", "i", "em", "u", "s", "del", "ins", "mark", "sub", "sup", "small", "kbd",
    "code", "pre", "br", "hr", "p", "div", "span", "center", "font", "blockquote",
    "details", "summary", "ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody",
    "tr", "th", "td", "h1", "h2", "h3", "h4", "h5", "h6",
}  # fmt: skip
# Kept as their content only: a bare <p> or <font> adds nothing but layout the page owns.
_DROPPED = {"p", "div", "span", "center", "font"}
_VOID = {"br", "hr"}
# A tag's attributes run to its `>` without backtracking (a lazy run before `\s*` took quadratic
# time over spaces); a comment's end is found by `clean`, once. A slash may follow the name at
# once, as in `<br/>` and `<hr/>`, the way XHTML-minded editors write void tags.
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)(\s[^<>]*|\s*/\s*)?>|<!--")
_ATTR = re.compile(r"""([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")

# (src, alt, width) -> the <img> or its stand-in
ImageMaker = Callable[[str, str, str], str]


def attributes(text: str) -> dict[str, str]:
    return {
        match.group(1).lower(): html.unescape(
            match.group(2) or match.group(3) or match.group(4) or ""
        )
        for match in _ATTR.finditer(text)
    }


def clean(fragment: str, image: ImageMaker) -> str:
    """`fragment` of raw HTML as safe HTML: kept tags bare, images checked, the rest escaped."""
    out: list[str] = []
    position = 0
    last_close = fragment.rfind("-->")
    searched = 0
    while match := _TAG.search(fragment, searched):
        searched = match.end()
        if match.group(2) is None:  # a comment, if it ends
            end = fragment.find("-->", match.end()) if match.end() <= last_close else -1
            if end < 0:
                continue  # `<!--` that never ends: text
            out.append(_text(fragment[position : match.start()]))
            position = searched = end + 3
            continue
        out.append(_text(fragment[position : match.start()]))
        position = match.end()
        closing, name = match.group(1), match.group(2).lower()
        attrs = (match.group(3) or "").rstrip().removesuffix("/")
        if name == "img" and not closing:
            found = attributes(attrs)
            out.append(image(found.get("src", ""), found.get("alt", ""), found.get("width", "")))
        elif name == "a":
            out.append("</a>" if closing else _anchor(attributes(attrs).get("href", "")))
        elif name in _DROPPED:
            out.append("<br>" if name in ("p", "div") and closing else "")
        elif name in _KEPT:
            out.append(f"<{name}>" if name in _VOID else f"<{closing}{name}>")
        else:
            out.append(html.escape(match.group(0), quote=False))
    out.append(_text(fragment[position:]))
    return "".join(out)


def _text(text: str) -> str:
    # Entities the author wrote (&nbsp;, &lt;) stay what they mean; nothing else is markup.
    return html.escape(html.unescape(text), quote=False)


def _anchor(href: str) -> str:
    href = href.strip()
    if href.startswith(("http://", "https://")):
        return f'<a href="{html.escape(href)}" rel="noopener noreferrer">'
    if href.startswith("#") or (href and ":" not in href.split("/", 1)[0]):
        return f'<a href="{html.escape(href)}">'
    return "<a>"
