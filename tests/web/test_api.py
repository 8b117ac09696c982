"""The JSON API contract: fields, status codes and JSON errors."""

from datetime import datetime, timedelta

import pytest

pytestmark = pytest.mark.storage


def test_healthz(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_decks_with_counts(client, clock):
    client.post("/api/reviews", json={"card_id": "paged", "rating": 4})
    clock.advance(days=30)
    response = client.get("/api/decks")
    assert response.status_code == 200
    assert response.json() == [
        {
            "slug": "kernels",
            "title": "算子与性能",
            "description": "GEMM、roofline 与显存",
            "tags": ["gpu", "kernels"],
            "total": 3,
            "new": 3,
            "due": 0,
            "seen": 0,
            "mature": 0,
        },
        {
            "slug": "notes",
            "title": "Interview Notes",
            "description": "Numbered notes in English.",
            "tags": ["notes"],
            "total": 2,
            "new": 1,
            "due": 1,
            "seen": 1,
            "mature": 0,
        },
    ]


def test_next_card_fields(client):
    response = client.get("/api/study/next", params={"deck": "kernels", "section": "推理"})
    assert response.status_code == 200
    card = response.json()
    assert set(card) == {
        "id", "deck", "deck_title", "section", "question", "question_html", "answer_html",
        "followups_html", "followups", "pitfalls_html", "tags", "links", "retired", "queue",
        "version", "due", "counts", "intervals", "flag", "leech",
        "kind", "front_html", "source_path", "source_line",
    }  # fmt: skip
    assert (card["id"], card["deck"], card["section"]) == ("kv-cache", "kernels", "推理")
    assert (card["kind"], card["front_html"]) == ("basic", "")
    assert card["source_path"] == "decks/a-kernels.md" and card["source_line"] > 1
    assert card["question_html"] == "KV cache 占多少显存？"
    assert card["answer_html"].startswith("<p>每个 token 每层存 K 和 V 两份")
    assert (card["followups_html"], card["pitfalls_html"]) == ("", "")
    assert card["links"] == [
        {
            "title": "FlashAttention 论文",
            "url": "https://arxiv.org/abs/2205.14135",
            "resolved": True,
        },
        {"title": "不存在的主题", "url": None, "resolved": False},
    ]
    assert (card["queue"], card["version"], card["retired"]) == ("new", 0, False)
    assert card["counts"] == {"new": 1, "learning": 0, "review": 0}
    assert [i["rating"] for i in card["intervals"]] == [1, 2, 3, 4]
    seconds = [i["seconds"] for i in card["intervals"]]
    assert seconds[0] == 60
    assert seconds[2] == 600
    assert seconds == sorted(seconds)
    assert [i["label"] for i in card["intervals"]][:1] == ["1 min"]


def test_next_card_extras_and_topic_links(client):
    card = client.get("/api/study/next").json()
    assert card["id"] == "gemm-core"
    assert "追问 tiling" in card["followups_html"]
    assert "GEMM 快不等于端到端快" in card["pitfalls_html"]
    assert 'class="katex"' in card["answer_html"]
    assert card["links"] == [
        {"title": "线性层与 GEMM", "url": "/topics/linear-gemm", "resolved": True},
        {"title": "算子融合", "url": "/topics/fusion", "resolved": True},
    ]


def test_interval_labels_follow_the_language(client):
    zh = client.get("/api/study/next", headers={"Accept-Language": "zh"}).json()
    assert [i["label"] for i in zh["intervals"]][:1] == ["1 分钟"]


def test_nothing_due_is_204_with_no_body(client, bank):
    bank.configure(new_per_day=0)
    response = client.get("/api/study/next")
    assert response.status_code == 204
    assert response.content == b""
    assert client.get("/api/study/next", params={"deck": "nope"}).status_code == 204


def test_review_returns_the_new_state_and_due_time(client, clock):
    response = client.post(
        "/api/reviews",
        json={"card_id": "gemm-core", "rating": 3, "duration_ms": 4200, "version": 0},
    )
    assert response.status_code == 200
    body = response.json()
    assert datetime.fromisoformat(body.pop("due")) == clock.now + timedelta(minutes=10)
    assert body.pop("stability") > 0
    assert body.pop("difficulty") > 0
    nxt = body.pop("next")
    assert body == {
        "card_id": "gemm-core",
        "state": "learning",
        "reps": 1,
        "lapses": 0,
        "version": 1,
        "replayed": False,
        "leech": False,
        "counts": {"new": 4, "learning": 1, "review": 0},
    }
    # The answer carries the next card, as /api/study/next gives it.
    assert nxt == client.get("/api/study/next").json()
    assert nxt["id"] == "roofline"
    assert nxt["counts"] == {"new": 4, "learning": 1, "review": 0}


def test_review_records_duration(client, bank):
    client.post("/api/reviews", json={"card_id": "paged", "rating": 2, "duration_ms": 4200})
    [log] = bank.logs()
    assert (log.card_id, log.rating, log.duration_ms, log.queue) == ("paged", 2, 4200, "new")


def test_unknown_card_is_404(client, bank):
    response = client.post("/api/reviews", json={"card_id": "nope", "rating": 3})
    assert (response.status_code, response.json()["code"]) == (404, "card_not_found")
    assert bank.logs() == []


@pytest.mark.parametrize(
    "body",
    [
        {"card_id": "gemm-core", "rating": 0},
        {"card_id": "gemm-core", "rating": 5},
        {"card_id": "gemm-core", "rating": "good"},
        {"card_id": "gemm-core"},
        {"rating": 3},
        {"card_id": "gemm-core", "rating": 3, "duration_ms": -1},
        {"card_id": "gemm-core", "rating": 3, "version": -1},
    ],
)
def test_invalid_review_is_422_with_the_field_named(client, bank, body):
    response = client.post("/api/reviews", json=body)
    assert (response.status_code, response.json()["code"]) == (422, "invalid_request")
    detail = response.json()["detail"]
    assert isinstance(detail, list)
    assert detail
    assert all(problem["loc"][0] == "body" for problem in detail)
    assert bank.logs() == []


@pytest.mark.parametrize("content", [b"{not json", b"", b"[1, 2]", b'"rating"'])
def test_malformed_json_is_422(client, content):
    response = client.post(
        "/api/reviews", content=content, headers={"Content-Type": "application/json"}
    )
    assert (response.status_code, response.json()["code"]) == (422, "invalid_request")


def test_stale_version_is_409(client, bank):
    assert client.post("/api/reviews", json={"card_id": "roofline", "rating": 3}).status_code == 200
    response = client.post("/api/reviews", json={"card_id": "roofline", "rating": 3, "version": 0})
    assert (response.status_code, response.json()["code"]) == (409, "version_conflict")
    assert len(bank.logs()) == 1
    assert bank.state("roofline").version == 1


def test_undo_with_nothing_to_undo_is_404(client):
    response = client.post("/api/reviews/undo")
    assert (response.status_code, response.json()["code"]) == (404, "nothing_to_undo")
    assert response.headers["content-type"] == "application/json"


def test_card_by_id(client):
    response = client.get("/api/cards/fusion")
    assert response.status_code == 200
    card = response.json()
    assert (card["id"], card["deck"], card["deck_title"]) == ("fusion", "notes", "Interview Notes")
    assert card["question"] == "What is Kernel Fusion?"
    assert card["tags"] == ["notes"]
    assert card["links"] == [
        {"title": "Operator Fusion", "url": "/topics/fusion", "resolved": True}
    ]


def test_unknown_card_by_id_is_404(client):
    response = client.get("/api/cards/nope")
    assert (response.status_code, response.json()["code"]) == (404, "card_not_found")


def test_topic_by_slug(client):
    response = client.get("/api/topics/fusion")
    assert response.status_code == 200
    topic = response.json()
    assert topic["title"] == "算子融合"
    assert topic["aliases"] == ["Operator Fusion"]
    assert topic["summary"].startswith("把多个 kernel 合成一个")
    assert "算子融合（kernel fusion）" in topic["body_html"]
    assert topic["cards"] == [
        {
            "id": "gemm-core",
            "question": "为什么 GEMM 是核心？",
            "deck": "kernels",
            "url": "/cards/gemm-core",
        },
        {
            "id": "fusion",
            "question": "What is Kernel Fusion?",
            "deck": "notes",
            "url": "/cards/fusion",
        },
    ]


def test_unknown_topic_is_404(client):
    response = client.get("/api/topics/nope")
    assert (response.status_code, response.json()["code"]) == (404, "topic_not_found")


def test_unknown_api_route_and_wrong_method_are_json(client):
    response = client.get("/api/nope")
    assert (response.status_code, response.json()["code"]) == (404, "not_found")
    response = client.get("/api/reviews")
    assert (response.status_code, response.json()["code"]) == (405, "method_not_allowed")


def test_openapi_documents_the_api_but_not_the_pages(client):
    paths = set(client.get("/openapi.json").json()["paths"])
    assert paths >= {
        "/healthz",
        "/api/decks",
        "/api/study/next",
        "/api/reviews",
        "/api/reviews/undo",
        "/api/cards/{card_id}",
        "/api/topics/{slug}",
        "/api/search",
    }
    assert paths.isdisjoint(
        {"/", "/study", "/study/review", "/practice", "/search", "/lang/{code}"}
    )


def test_openapi_documents_the_study_filters_and_the_review_body(client):
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    parameters = {p["name"]: p for p in paths["/api/study/next"]["get"]["parameters"]}
    assert set(parameters) == {"deck", "folder", "section", "tag", "ahead", "exclude"}
    section = parameters["section"]["schema"]
    assert 500 in [option.get("maxLength") for option in section.get("anyOf", [section])]
    body = paths["/api/reviews"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    assert body["required"] is True
    assert set(schema["required"]) == {"card_id", "rating"}
    rating = schema["properties"]["rating"]["$ref"].rsplit("/", 1)[-1]
    assert spec["components"]["schemas"][rating]["enum"] == [1, 2, 3, 4]


@pytest.mark.parametrize(("name", "limit"), [("deck", 200), ("section", 500), ("tag", 200)])
def test_too_long_study_filter_is_422_naming_it(client, name, limit):
    assert client.get("/api/study/next", params={name: "x" * limit}).status_code == 204
    response = client.get("/api/study/next", params={name: "x" * (limit + 1)})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", name]
