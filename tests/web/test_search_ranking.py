"""Search people can trust: folded text, field-group ranking, clean snippets, filters, suggestions.

Every test runs on SQLite and on PostgreSQL with the same expected results, which is the
promise: the same query gives the same ranked hits on both.
"""

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select

from app.config import Settings
from app.content.bank.sync import import_content
from app.content.compile.render import Renderer
from app.content.compile.searchtext import fold, topic_fields
from app.infra.models import SearchEntry
from app.search.query import search
from tests.support import apps
from tests.support.banks import commit

pytestmark = pytest.mark.storage

DECK = r"""
---
title: 算子与性能
slug: kernels
tags: [gpu]
---

## 计算

### Q：为什么 GEMM 是核心？ {#gemm-core}

**面试回答。** 矩阵乘占了绝大部分计算，**分层分块（hierarchical tiling）**后 GEMM 能接近峰值。

**易错点 / 边界。** 只看 FLOPs 不看访存，会高估收益。

**继续读。** Roofline 与性能模型

### Q：Roofline 怎么读？ {#roofline-card}

**面试回答。** 算术强度 $I=\frac{\text{FLOPs}}{\text{Bytes}}$ 决定 kernel 落在拐点哪一侧；
`memory-bound` 时先减少访存。

### Q：École 的 attention 课讲了什么？ {#ecole}

**面试回答。** 讲了 *显存* 与融合的取舍。

### Q：为什么要做算子融合？ {#fusion}

**面试回答。** 省掉中间结果的显存往返。

**追问展开。** 追问 roofline 上融合前后的点怎么移动。
"""

OTHER = """
---
title: Serving
slug: serving
---

### Q：ＧＥＭＭ 在 decode 阶段是什么形状？ {#decode-gemm}

**面试回答。** 很瘦的 GEMV，受带宽限制。
"""

TOPICS = {
    "topics/roofline.md": """
        ---
        title: Roofline 与性能模型
        aliases: [roofline model]
        summary: 用算术强度判断 kernel 受算力还是带宽限制。
        ---

        ## 是什么

        横轴是算术强度，$P=\\min(\\pi, \\beta I)$。

        ## 面试角度与易错点

        拐点随硬件变化。
    """,
    "topics/fusion.md": """
        ---
        title: 算子融合
        summary: 把多个 kernel 合成一个。
        ---

        融合减少显存读写。

        ## 延伸阅读

        - Roofline 论文（Williams 2009）
    """,
}


@pytest.fixture
def client(
    database_url: str, write_content: Callable[[dict[str, str]], Path]
) -> Iterator[TestClient]:
    root = write_content({"decks/a.md": DECK, "decks/b.md": OTHER, **TOPICS})
    app = apps.take(
        Settings(_env_file=None, database_url=database_url, content_dir=root)  # type: ignore[call-arg]
    )
    app.state.database.upgrade()  # before its lifespan: written to first
    import_content(root, app.state.database)
    with TestClient(app, headers={"Accept-Language": "en"}) as client:
        yield client
    app.state.database.engine.dispose()
    apps.give_back(app)


def ranked(client: TestClient, q: str, **params: str) -> list[tuple[str, str, str]]:
    response = client.get("/api/search", params={"q": q, **params})
    assert response.status_code == 200, response.text
    return [(hit["kind"], hit["id"], hit["field"]) for hit in response.json()]


def test_full_width_and_accented_letters_match_their_folded_forms(client: TestClient) -> None:
    gemm = ranked(client, "gemm")
    assert ranked(client, "ＧＥＭＭ") == ranked(client, "GEMM") == gemm
    assert ("card", "decode-gemm", "title") in gemm
    assert ranked(client, "école") == ranked(client, "ÉCOLE") == [("card", "ecole", "title")]
    # Decomposed input (e + combining acute) is the same word.
    assert ranked(client, "E\u0301cole") == [("card", "ecole", "title")]


def test_chinese_two_character_words(client: TestClient) -> None:
    assert ranked(client, "融合") == [
        ("topic", "fusion", "title"),
        ("card", "fusion", "title"),
        ("card", "ecole", "body"),
    ]
    assert ranked(client, "显存") == [
        ("topic", "fusion", "body"),
        ("card", "ecole", "body"),
        ("card", "fusion", "body"),
    ]


def test_title_beats_body_beats_pitfalls_beats_reading_list(client: TestClient) -> None:
    # The roofline topic and card come first; the fusion topic, which only names roofline in
    # its reading list, comes after the card that mentions it in a follow-up.
    assert ranked(client, "roofline") == [
        ("topic", "roofline", "title"),
        ("card", "roofline-card", "title"),
        ("card", "fusion", "extra"),
        ("topic", "fusion", "reading"),
        ("card", "gemm-core", "reading"),
    ]


def test_more_matched_terms_rank_higher_within_a_field(client: TestClient) -> None:
    # Both titles hold "roofline"; only the topic's aliases also hold "model".
    assert ranked(client, "roofline model")[0] == ("topic", "roofline", "title")
    assert ranked(client, "显存 融合")[:2] == [
        ("topic", "fusion", "title"),
        ("card", "fusion", "title"),
    ]


def test_snippets_are_plain_text_with_the_match_marked(client: TestClient) -> None:
    [hit] = client.get("/api/search", params={"q": "算术强度", "kind": "card"}).json()
    assert hit["snippet"].startswith("算术强度 I=FLOPs/Bytes 决定 kernel")
    assert "\\frac" not in hit["snippet"] and "$" not in hit["snippet"]
    assert "`" not in hit["snippet"]
    assert hit["snippet_html"].startswith("<mark>算术强度</mark> I=FLOPs/Bytes")
    [gemm] = client.get("/api/search", params={"q": "tiling"}).json()
    assert "**" not in gemm["snippet"]
    assert "分层分块（hierarchical <mark>tiling</mark>）后 GEMM" in gemm["snippet_html"]


def test_filters_by_kind_and_deck(client: TestClient) -> None:
    assert ranked(client, "gemm", kind="topic") == []
    assert ranked(client, "融合", kind="topic") == [("topic", "fusion", "title")]
    assert ranked(client, "gemm", deck="serving") == [("card", "decode-gemm", "title")]
    assert {hit[1] for hit in ranked(client, "gemm", deck="kernels")} == {"gemm-core"}
    assert client.get("/api/search", params={"q": "x", "kind": "deck"}).status_code == 422
    page = client.get("/search", params={"q": "gemm", "kind": "card", "deck": "serving"}).text
    assert re.findall(r'<li class="hit (\w+)">', page) == ["card"]
    assert '<option value="serving" selected>Serving</option>' in page
    assert '<option value="card" selected>Cards only</option>' in page


def test_a_miss_suggests_close_words(client: TestClient) -> None:
    assert ranked(client, "gemn") == []
    page = client.get("/search", params={"q": "gemn"}).text
    assert "No results." in page
    [offered] = re.findall(r'<p id="suggestions">(.*?)</p>', page, re.S)
    assert offered.split()[:3] == ["Did", "you", "mean:"]
    assert re.findall(r'<a href="([^"]+)">', offered)[0] == "/search?q=gemm"
    assert (
        'href="/search?q=roofline%20model"'
        in client.get("/search", params={"q": "roofline modle"}).text
    )
    assert 'id="suggestions"' not in client.get("/search", params={"q": "不存在"}).text


def test_the_search_page_has_one_search_box(client: TestClient) -> None:
    page = client.get("/search", params={"q": "gemm"}).text
    assert page.count('type="search"') == 1
    assert client.get("/").text.count('type="search"') == 1


def test_entries_follow_edits_and_removals(
    client: TestClient, write_content: Callable[[dict[str, str | None]], Path]
) -> None:
    database = client.app.state.database  # type: ignore[attr-defined]
    root = write_content({"decks/b.md": OTHER.replace("很瘦的 GEMV", "很瘦的 matvec")})
    import_content(root, database)
    assert ranked(client, "matvec") == [("card", "decode-gemm", "body")]
    write_content({"decks/b.md": None, "topics/fusion.md": None})
    import_content(root, database)
    assert ranked(client, "matvec") == []
    assert ("topic", "fusion", "title") not in ranked(client, "融合")
    with database.session() as session:
        keys = sorted(session.exec(select(SearchEntry.key)).all())
        assert keys == ["ecole", "fusion", "gemm-core", "roofline", "roofline-card"]
        # An index lost or from before search entries is made again by a no-op import.
        for entry in session.exec(select(SearchEntry)).all():
            session.delete(entry)
        commit(session)
    import_content(root, database)
    assert ranked(client, "École") == [("card", "ecole", "title")]
    with database.session() as session:
        assert search(session, "gemm", kind="card").total == 1


def test_folding_and_plain_text() -> None:
    assert fold("ＧＥＭＭ École ﬁ") == "gemm école fi"
    body = "intro $\\beta$\n\n## 易错点\n\n### 边界\n\ntrap\n\n## 延伸阅读\n\n- paper\n"
    groups = Renderer().render(body, path="t.md", line=1, errors=[], sections=True).groups
    fields = topic_fields(title="T", aliases=["alias"], summary="S", **groups)
    assert (fields.title, fields.body, fields.extra, fields.reading) == (
        "T · alias",
        "S intro β 易错点 延伸阅读",
        "边界 trap",
        "paper",
    )
