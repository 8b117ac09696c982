"""Rendered pages as the tests read them: an element by its id, its attributes and text."""

from dataclasses import dataclass
from html.parser import HTMLParser

VOID_TAGS = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass
class Element:
    attrs: dict[str, str | None]
    text: str  # all text inside, whitespace collapsed

    @property
    def hidden(self) -> bool:
        return "hidden" in self.attrs


class _Finder(HTMLParser):
    def __init__(self, element_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.element_id = element_id
        self.attrs: dict[str, str | None] | None = None
        self.depth = 0  # open elements inside the one found, itself included
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        opens = 0 if tag in VOID_TAGS else 1
        if self.depth:
            self.depth += opens
        elif self.attrs is None and dict(attrs).get("id") == self.element_id:
            self.attrs = dict(attrs)
            self.depth = opens

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.depth and self.attrs is None and dict(attrs).get("id") == self.element_id:
            self.attrs = dict(attrs)

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag not in VOID_TAGS:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.text.append(data)


def element(page: str, element_id: str) -> Element | None:
    """The element with `element_id` in `page`, or None."""
    finder = _Finder(element_id)
    finder.feed(page)
    if finder.attrs is None:
        return None
    return Element(finder.attrs, " ".join("".join(finder.text).split()))


def text_of(page: str, element_id: str) -> str | None:
    """The text inside the element with `element_id`, whitespace collapsed; None if none."""
    found = element(page, element_id)
    return None if found is None else found.text
