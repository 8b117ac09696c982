"""Search over cards and topics: Chinese words without a segmenter, English in any case."""

import re

import pytest
from fastapi.testclient import TestClient

pytestmark = pytest.mark.storage


def api_search(client: TestClient, q: str) -> list[dict]:
    response = client.get("/api/search", params={"q": q})
    assert response.status_code == 200
    return response.json()


def found(hits: list[dict]) -> list[tuple[str, str]]:
    return [(hit["kind"], hit["id"]) for hit in hits]


def page_hits(client: TestClient, q: str) -> list[tuple[str, str]]:
    """(url, highlighted title) of each hit on the search page, in order."""
    response = client.get("/search", params={"q": q})
    assert response.status_code == 200
    return re.findall(r'<li class="hit \w+">.*?<a href="([^"]+)">(.*?)</a>', response.text, re.S)


def test_chinese_two_character_word_finds_cards_and_topics(client):
    hits = api_search(client, "融合")
    assert found(hits) == [("topic", "fusion"), ("card", "gemm-core"), ("card", "fusion")]
    for hit in hits:
        assert "<mark>融合</mark>" in hit["snippet_html"]
    assert hits[1] == {
        "kind": "card",
        "id": "gemm-core",
        "title": "为什么 GEMM 是核心？",
        "url": "/cards/gemm-core",
        "snippet": "矩阵乘 C = AB 占了绝大部分计算；算子融合可以减少显存读写。",
        "snippet_html": "矩阵乘 C = AB 占了绝大部分计算；算子<mark>融合</mark>可以减少显存读写。",
        "field": "body",
        "deck": "算子与性能",
    }


def test_chinese_word_on_the_search_page_is_highlighted(client):
    response = client.get("/search", params={"q": "显存"})
    page = response.text
    assert ("topic", "fusion") in found(api_search(client, "显存"))
    # The card whose question holds the word comes first, highlighted there too.
    assert page_hits(client, "显存") == [
        ("/cards/kv-cache", "KV cache 占多少<mark>显存</mark>？"),
        ("/topics/fusion", "算子融合"),
        ("/cards/gemm-core", "为什么 GEMM 是核心？"),
    ]
    assert '<p class="muted" id="result-count">3 results</p>' in page
    assert "减少<mark>显存</mark>读写" in page
    assert 'value="显存"' in page


@pytest.mark.parametrize("q", ["fusion", "FUSION", "FuSiOn"])
def test_english_words_match_in_any_case_and_keep_their_case_when_highlighted(client, q):
    # The card's question matches, so it comes before the topic that has the word in its body.
    assert found(api_search(client, q)) == [("card", "fusion"), ("topic", "fusion")]
    assert page_hits(client, q)[0] == ("/cards/fusion", "What is Kernel <mark>Fusion</mark>?")


def test_every_word_must_match(client):
    assert sorted(found(api_search(client, "kernel 融合"))) == [
        ("card", "fusion"),
        ("topic", "fusion"),
    ]
    assert found(api_search(client, "PagedAttention 融合")) == []


def test_title_matches_come_first(client):
    # Topics come before cards, but any title match comes before a match in a body only.
    assert found(api_search(client, "gemm")) == [
        ("topic", "linear-gemm"),
        ("card", "gemm-core"),
        ("topic", "fusion"),
    ]


@pytest.mark.parametrize("q", ["%", "_", "%%", "不存在的词"])
def test_wildcards_are_literal_and_misses_say_so(client, q):
    assert api_search(client, q) == []
    page = client.get("/search", params={"q": q}).text
    assert "No results." in page
    assert '<p class="muted" id="result-count">0 results</p>' in page


def test_empty_query_shows_the_form_only(client):
    assert api_search(client, "   ") == []
    page = client.get("/search").text
    assert 'id="result-count"' not in page
    assert 'placeholder="Search questions, answers and topics"' in page


def test_query_is_escaped(client):
    page = client.get("/search", params={"q": "<script>x</script>"}).text
    assert "<script>x" not in page
    assert "&lt;script&gt;x&lt;/script&gt;" in page


def test_overlong_query_is_refused(client):
    assert client.get("/api/search", params={"q": "x" * 201}).status_code == 422
    assert client.get("/search", params={"q": "x" * 201}).status_code == 400
