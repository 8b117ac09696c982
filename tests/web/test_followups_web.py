"""Follow-up questions over HTTP: the card's JSON, its page, the study answer and search."""

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.followups import QUESTIONS

pytestmark = pytest.mark.storage

TOPIC = """
---
title: FlashAttention 与长上下文
---

精确 attention 的 IO-aware 实现。
"""


@pytest.fixture
def bank_dir(write_content: Callable[[dict[str, str]], Path]) -> Path:
    """One deck whose first card has two follow-up questions after its prose."""
    return write_content({"decks/attention.md": QUESTIONS, "topics/fa.md": TOPIC})


def test_card_json_lists_followups_beside_the_prose(client):
    response = client.get("/api/cards/fa")
    assert response.status_code == 200
    card = response.json()
    assert card["followups_html"] == "<p>回答里要点出 IO-aware。</p>\n"
    assert [f["id"] for f in card["followups"]] == ["fa.f1", "fa-head-dim"]
    assert set(card["followups"][0]) == {"id", "question_html", "answer_html"}
    first, second = card["followups"]
    assert first["question_html"] == "backward 不存 attention matrix 怎么求梯度？"
    assert first["answer_html"].startswith('<p>前向只存每行的 logsumexp <span class="katex">')
    assert second == {
        "id": "fa-head-dim",
        "question_html": "为什么 head dim 大了收益变小？",
        "answer_html": "<p>SRAM 固定，每块放得下的行变少。</p>\n",
    }
    assert client.get("/api/cards/online").json()["followups"] == []


def test_next_card_json_carries_the_followups(client):
    card = client.get("/api/study/next").json()
    assert card["id"] == "fa"
    assert [f["id"] for f in card["followups"]] == ["fa.f1", "fa-head-dim"]


def test_card_page_shows_each_question_with_its_answer_behind_it(client):
    page = client.get("/cards/fa").text
    items = re.findall(
        r'<li id="followup-([^"]+)"[^>]*>\s*<details[^>]*>\s*<summary[^>]*>(.*?)</summary>\s*'
        r'<div class="prose followup-answer"[^>]*>(.*?)</div>',
        page,
        re.S,
    )
    assert [(item[0], item[1]) for item in items] == [
        ("fa.f1", "backward 不存 attention matrix 怎么求梯度？"),
        ("fa-head-dim", "为什么 head dim 大了收益变小？"),
    ]
    assert "SRAM 固定" in items[1][2]
    assert page.index("followup-fa-head-dim") < page.index("回答里要点出 IO-aware")


@pytest.mark.parametrize("q", ["logsumexp", "SRAM 固定"])
def test_search_finds_a_card_by_its_followup_answers(client, q):
    hits = client.get("/api/search", params={"q": q}).json()
    assert [(hit["kind"], hit["id"]) for hit in hits] == [("card", "fa")]


def test_search_finds_a_card_by_a_followup_question(client):
    hits = client.get("/api/search", params={"q": "head dim"}).json()
    assert [(hit["kind"], hit["id"]) for hit in hits] == [("card", "fa")]


def test_practice_asks_the_followup_questions_and_keeps_the_prose_apart(client):
    response = client.post("/practice", data={"deck": "attention", "order": "content"})
    assert response.status_code == 303
    page = client.get(f"{response.headers['location']}?reveal=1").text
    section = r'class="(?:followup-prompt )?followup-(questions|prose)"[^>]*>\s*<h2>(.*?)</h2>'
    headings = re.findall(section, page)
    assert headings == [
        ("questions", "The interviewer presses on"),
        ("prose", "Follow-ups"),
    ]
    assert page.index("backward 不存 attention matrix") < page.index("回答里要点出 IO-aware")
