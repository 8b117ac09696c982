"""A question written with Markdown and math: the card page's title reads it as text, and the
lists of cards show it rendered, never its Markdown source."""

import html
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

pytestmark = pytest.mark.storage

NOTE = """# Sorting

## Why is `merge sort` **always** $O(n \\log n)$?

It halves the input $\\log n$ times and merges each level in $O(n)$.
"""


@pytest.fixture
def bank_dir(write_content: Callable[[dict[str, str]], Path]) -> Path:
    return write_content({"sorting.md": NOTE})


def _title(page: str) -> str:
    found = re.search(r"<title>(.*?)</title>", page, re.S)
    assert found, page[:300]
    return html.unescape(found.group(1))


def test_the_card_page_title_is_the_question_as_text(client: TestClient) -> None:
    card_id = client.get("/api/study/next").json()["id"]
    title = _title(client.get(f"/cards/{card_id}").text)
    assert title.startswith("Why is merge sort always O(n log n)?"), title
    assert not set("$`*\\") & set(title), title


def test_the_list_of_flagged_cards_shows_the_question_rendered(client: TestClient) -> None:
    card_id = client.get("/api/study/next").json()["id"]
    assert client.post(f"/api/cards/{card_id}/flag", json={"flag": 2}).status_code == 200
    page = client.get("/marks/flagged").text
    row = re.search(rf'<tr id="marked-{re.escape(card_id)}">(.*?)</tr>', page, re.S)
    assert row, page
    assert '<span class="katex">' in row.group(1) and "<code>merge sort</code>" in row.group(1)
    assert "$O(" not in row.group(1) and "**" not in row.group(1)
