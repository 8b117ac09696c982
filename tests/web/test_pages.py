"""Browsing pages: home, decks, cards, topics, errors and the interface language."""

import re
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

from app.content.bank.sync import import_content


def get(client: TestClient, url: str, **kwargs) -> str:
    response = client.get(url, **kwargs)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/html")
    return response.text


def deck_counts(page: str, slug: str) -> dict[str, int]:
    """The new/learning/review/total numbers shown in the home page's row for one deck."""
    start = page.index(f'<a class="deck-name" href="/decks/{slug}">')
    item = page[start : page.index("</li>", start)]
    shown = {key: int(n) for key, n in re.findall(r"<span>(\w+) <b>(\d+)</b></span>", item)}
    return {
        "due": shown["Learning"] + shown["Review"],
        "new": shown["New"],
        "total": shown["Total"],
    }


def test_home_lists_decks_with_due_new_and_total_counts(client, clock):
    page = get(client, "/")
    assert '<a class="deck-name" href="/decks/kernels">算子与性能</a>' in page
    assert '<a class="deck-name" href="/decks/notes">Interview Notes</a>' in page
    assert page.index("/decks/kernels") < page.index("/decks/notes")
    assert deck_counts(page, "kernels") == {"due": 0, "new": 3, "total": 3}
    assert deck_counts(page, "notes") == {"due": 0, "new": 2, "total": 2}

    client.post("/api/reviews", json={"card_id": "roofline", "rating": 4})
    client.post("/api/reviews", json={"card_id": "fusion", "rating": 3})
    clock.advance(days=30)
    page = get(client, "/")
    assert deck_counts(page, "kernels") == {"due": 1, "new": 2, "total": 3}
    assert deck_counts(page, "notes") == {"due": 1, "new": 1, "total": 2}


def test_deck_page_lists_sections_and_cards_in_order(client):
    page = get(client, "/decks/kernels")
    assert re.findall(r"<h2>([^<]+)</h2>", page) == ["GPU 基础", "推理"]
    cards = re.findall(r'<li><a href="/cards/([\w-]+)">', page)
    assert cards == ["gemm-core", "roofline", "kv-cache"]
    assert page.index("GPU 基础") < page.index("/cards/gemm-core") < page.index("推理")
    assert "本组收录 GEMM 与 roofline 的面试题。" in page  # the intro
    assert 'href="/study?deck=kernels&amp;section=%E6%8E%A8%E7%90%86"' in page


def test_home_and_deck_pages_link_each_tag_to_its_cards(client):
    page = get(client, "/")
    tags = re.findall(
        r'class="tag" href="/study\?tag=(\w+)"[^>]*>#\w+</a>\s*<span class="muted">(\d+)', page
    )
    assert tags == [("gpu", "3"), ("kernels", "3"), ("notes", "2")]
    assert 'href="/practice?tag=notes"' in page
    for tag, total in tags:  # each count is what studying the tag offers
        offered = client.get("/api/study/next", params={"tag": tag}).json()["counts"]["new"]
        assert offered == int(total)
    deck = get(client, "/decks/kernels")
    assert re.findall(r'class="tag" href="/study\?tag=(\w+)"', deck) == ["gpu", "kernels"]


def test_numbered_deck_without_sections(client):
    page = get(client, "/decks/notes")
    assert "<h2>No section</h2>" in page
    assert re.findall(r'<li><a href="/cards/([\w-]+)">', page) == ["fusion", "paged"]
    assert "What is Kernel Fusion?" in page


def test_card_permalink_renders_math_answer_and_links(client):
    page = get(client, "/cards/roofline")
    assert '<h1 class="question">Roofline 模型怎么读？</h1>' in page
    assert 'class="katex"' in page
    assert '<annotation encoding="application/x-tex">' in page
    assert '<a href="/decks/kernels">算子与性能</a>' in page
    assert (
        '<a href="/topics/kernel-cost-model" class="topic-link" data-slot="link-topic">'
        "Kernel Cost Model</a>" in page
    )
    assert "State: New" in page


def test_card_permalink_shows_external_and_unresolved_links(client):
    page = get(client, "/cards/kv-cache")
    assert (
        '<a href="https://arxiv.org/abs/2205.14135" rel="noopener noreferrer" '
        'class="external" data-slot="link-external">FlashAttention 论文</a>'
    ) in page
    assert (
        '<span class="unresolved" data-slot="link-unresolved">不存在的主题 (no such topic)</span>'
        in page
    )


def test_topic_page_renders_its_body_and_every_card_linking_to_it(client):
    page = get(client, "/topics/fusion")
    assert "<h1>算子融合</h1>" in page
    assert "算子融合（kernel fusion）减少显存读写" in page
    backlinks = page[page.index('id="backlinks-h"') :]
    # One card links with [[算子融合]], the other through the alias "Operator Fusion".
    assert re.findall(r'<li><a href="/cards/([\w-]+)">', backlinks) == ["gemm-core", "fusion"]
    assert '<input type="hidden" name="cards" value="gemm-core,fusion">' in backlinks


def test_topic_page_renders_math_and_wikilinks(client):
    page = get(client, "/topics/linear-gemm")
    assert 'class="katex"' in page
    wikilink = '<a class="topic-link" href="/topics/go/Kernel%20Cost%20Model">Kernel Cost Model</a>'
    assert wikilink in page


def test_topic_without_cards_says_so(client, app, write_content):
    root = write_content({"topics/lonely.md": "---\ntitle: Lonely\n---\nNobody links here.\n"})
    import_content(root, app.state.database)
    page = get(client, "/topics/lonely")
    assert "No card links here yet." in page


def test_topic_index_lists_topics_with_card_counts(client):
    page = get(client, "/topics")
    items = re.findall(
        r'<li><a href="/topics/([\w-]+)">([^<]+)</a> <span class="muted">· (\d+)', page
    )
    assert sorted(items) == sorted(
        [
            ("kernel-cost-model", "Kernel Cost Model", "1"),
            ("fusion", "算子融合", "2"),
            ("linear-gemm", "线性层与 GEMM", "1"),
        ]
    )


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("算子融合", "fusion"),
        ("Operator Fusion", "fusion"),
        ("operator  fusion", "fusion"),
        ("Kernel Cost Model", "kernel-cost-model"),
        ("linear-gemm", "linear-gemm"),
    ],
)
def test_go_to_topic_by_title_alias_or_slug(client, title, slug):
    response = client.get(f"/topics/go/{title}")
    assert response.status_code == 303
    assert response.headers["location"] == f"/topics/{slug}"


def test_go_to_unknown_topic_searches_for_it(client):
    response = client.get("/topics/go/不存在的主题")
    assert response.status_code == 303
    assert response.headers["location"] == "/search?" + urlencode({"q": "不存在的主题"})


def test_a_card_removed_from_the_content_retires_and_keeps_its_history(
    client, app, clock, bank, bank_dir
):
    client.post("/api/reviews", json={"card_id": "roofline", "rating": 4})
    deck_file = bank_dir / "decks/a-kernels.md"
    original = deck_file.read_text(encoding="utf-8")
    start, end = original.index("### Q：Roofline"), original.index("## 推理")
    deck_file.write_text(original[:start] + original[end:], encoding="utf-8")
    import_content(bank_dir, app.state.database)
    clock.advance(days=30)  # the review would be due by now

    page = get(client, "/cards/roofline")
    assert "This card has been removed from the content." in page
    assert "Study it" not in page
    assert "/cards/roofline" not in get(client, "/decks/kernels")
    assert client.get("/api/cards/roofline").json()["retired"] is True
    assert client.get("/api/study/next").json()["counts"] == {"new": 4, "learning": 0, "review": 0}
    response = client.post("/api/reviews", json={"card_id": "roofline", "rating": 3})
    assert response.status_code == 404
    assert client.get("/api/search", params={"q": "roofline"}).json() == []

    deck_file.write_text(original, encoding="utf-8")
    import_content(bank_dir, app.state.database)
    card = client.get("/api/study/next").json()
    assert (card["id"], card["queue"]) == ("roofline", "review")
    assert bank.state("roofline").reps == 1


@pytest.mark.parametrize("url", ["/decks/nope", "/cards/nope", "/topics/nope", "/no/such/page"])
def test_unknown_things_get_a_404_page(client, url):
    response = client.get(url)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "<h1>Page not found</h1>" in response.text
    assert '<a href="/">Back to home</a>' in response.text
    assert "Traceback" not in response.text


def test_unknown_card_asked_for_json_gets_json(client):
    response = client.get("/cards/nope", headers={"Accept": "application/json"})
    assert (response.status_code, response.json()["code"]) == (404, "card_not_found")


def test_bad_query_value_gets_a_400_page_not_a_traceback(client):
    response = client.get("/practice/not-a-number")
    assert response.status_code == 400
    assert "<h1>Something went wrong</h1>" in response.text
    assert "practice_id" in response.text


@pytest.mark.parametrize(
    ("accept", "title", "study"),
    [
        ("en", "Decks", "Study"),
        ("en-GB,en;q=0.9", "Decks", "Study"),
        ("zh", "题库", "学习"),
        ("zh-CN,zh;q=0.9,en;q=0.8", "题库", "学习"),
        ("fr", "题库", "学习"),  # unsupported: the default, Chinese
    ],
)
def test_accept_language_chooses_the_interface_language(client, accept, title, study):
    page = get(client, "/", headers={"Accept-Language": accept})
    assert f"<h1>{title}</h1>" in page
    assert f'<a href="/study">{study}</a>' in page
    assert ('<html lang="en">' in page) == (title == "Decks")


def test_language_switch_sets_a_cookie_that_wins_over_the_browser(client):
    zh = {"Accept-Language": "zh-CN"}
    assert "<h1>题库</h1>" in get(client, "/", headers=zh)

    response = client.get("/lang/en", headers={"Referer": "http://testserver/decks/notes?x=1"})
    assert response.status_code == 303
    assert response.headers["location"] == "/decks/notes?x=1"
    assert "qbank_lang=en" in response.headers["set-cookie"]
    assert "<h1>Decks</h1>" in get(client, "/", headers=zh)
    assert "Page not found" in client.get("/cards/nope", headers=zh).text

    client.get("/lang/zh")
    assert "<h1>题库</h1>" in get(client, "/", headers={"Accept-Language": "en"})


def test_unknown_language_sets_no_cookie(client):
    response = client.get("/lang/xx")
    assert response.status_code == 303
    assert response.headers["location"] == "/"
    assert "set-cookie" not in response.headers


@pytest.mark.parametrize(
    "referer",
    [
        "https://evil.example/phish",
        "http://testserver//evil.example/phish",
        "http://testserver/\\evil.example/phish",
        "//evil.example/phish",
        "javascript:alert(1)",
    ],
)
def test_language_switch_never_redirects_off_site(client, referer):
    response = client.get("/lang/en", headers={"Referer": referer})
    assert response.status_code == 303
    location = response.headers["location"]
    # A path on this site only: browsers read "//host" and "/\\host" as another site.
    assert location.startswith("/")
    assert not location.startswith(("//", "/\\"))
