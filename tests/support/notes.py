"""The notes fixtures (tests/fixtures/notes/): each folder's expected.json, its pending checks."""

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest

NOTES = Path(__file__).parents[1] / "fixtures" / "notes"


_BESIDE_PUNCTUATION = re.compile(r" ?([,.;:?!()、]) ?")


def normal(text: str) -> str:
    """Text as the fixtures give it: no emphasis or code marks, whitespace collapsed and none
    beside punctuation (the plain text keeps none beside full-width punctuation)."""
    text = unicodedata.normalize("NFKC", text).replace("**", "").replace("`", "")
    return _BESIDE_PUNCTUATION.sub(r"\1", " ".join(text.split())).casefold()


def expected(folder: str) -> dict[str, Any]:
    return json.loads((NOTES / folder / "expected.json").read_text(encoding="utf-8"))


def mark_pending(request: pytest.FixtureRequest, folder: str, check: str) -> None:
    """Expect this check to fail while the folder's expected.json says it is pending."""
    reason = expected(folder).get("pending", {}).get(check)
    if reason:
        request.applymarker(pytest.mark.xfail(reason=f"{folder}: {reason}", strict=True))
