"""The linear-time rewrites of heading patterns read every heading as the patterns they replace
did (the old patterns, on short text, as the reference)."""

import re

from hypothesis import given
from hypothesis import strategies as st

from app.content.notes.labelled import _heading_label
from app.content.notes.outline import _without_closing_hashes, explicit_id
from app.content.notes.wording import unwrap

# Short text from the characters these patterns care about, so that the cases that matter
# (ids, tags, colons, runs of spaces) come up often; a heading is one line.
HEADINGS = st.text(alphabet=" \t\u3000#{}()（）:：ab答问x-.", max_size=24)

_EXPLICIT_ID = re.compile(r"[ \t]*\{#([^}\s]*)\}[ \t]*$")
_TRAILING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")
_LABEL_TAG = re.compile(r"^(.*?)\s*(?:[(（]([^)）]*)[)）])?\s*[:：]?$")


@given(HEADINGS)
def test_explicit_ids_as_the_pattern_found_them(text: str) -> None:
    text = text.strip()
    match = _EXPLICIT_ID.search(text)
    expected = (match.group(1), text[: match.start()].strip()) if match else (None, text)
    found, rest = explicit_id(text)
    assert (found, rest.strip() if found is not None else rest) == expected


@given(HEADINGS)
def test_closing_hashes_as_the_pattern_removed_them(text: str) -> None:
    assert _without_closing_hashes(text) == _TRAILING_HASHES.sub("", text)


@given(HEADINGS)
def test_heading_labels_as_the_pattern_read_them(text: str) -> None:
    import unicodedata

    match = _LABEL_TAG.match(unwrap(text))
    name, tag = (match.group(1), match.group(2) or "") if match else (text, "")
    expected = unicodedata.normalize("NFKC", name).casefold().strip(), tag.casefold().strip()
    assert _heading_label(text) == expected
