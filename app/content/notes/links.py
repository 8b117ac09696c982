"""A card's continue-reading block: wikilinks, Markdown links, web addresses or titles."""

import re
from dataclasses import dataclass
from urllib.parse import unquote

from app.content.errors import ContentError
from app.content.names import note_stem

_LIST_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])[ \t]+")
_WIKILINK = re.compile(r"^!?\[\[(.+?)\]\]$")
_MDLINK = re.compile(r"^\[(.+?)\]\((\S+?)\)$")
_URL = re.compile(r"^https?://\S+$")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


@dataclass
class Link:
    title: str
    target: str
    external: bool
    line: int


def parse_links(text: str, first: int, path: str, errors: list[ContentError]) -> list[Link]:
    """Read a continue-reading block (`text` from line `first`): split by ' / ' or by item."""
    links: list[Link] = []
    for offset, raw in enumerate(text.split("\n")):
        line = _LIST_MARKER.sub("", raw.strip())
        for entry in (part.strip() for part in line.split(" / ")):
            if not entry:
                continue
            lineno = first + offset
            if match := _WIKILINK.match(entry):
                target = match.group(1).split("|", 1)
                title = target[-1].strip()
                links.append(Link(title, target[0].strip(), False, lineno))
            elif match := _MDLINK.match(entry):
                title, target = match.group(1).strip(), match.group(2).strip()
                links.append(_target_link(title, target, lineno, path, errors))
            elif _URL.match(entry):
                links.append(Link(entry, entry, True, lineno))
            else:
                links.append(Link(entry, entry, False, lineno))
    return [link for link in links if link.target]


def _target_link(title: str, target: str, line: int, path: str, errors: list[ContentError]) -> Link:
    scheme = _SCHEME.match(target)
    if scheme is None:
        note = unquote(target.split("#", 1)[0])
        return Link(title, note_stem(note) if note else title, False, line)
    if scheme.group(1).lower() in ("http", "https"):
        return Link(title, target, True, line)
    errors.append(ContentError.of("link_unsafe", path, line, target=target))
    return Link(title, "", True, line)
