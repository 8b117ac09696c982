"""Ratings and undos sent again with the same Idempotency-Key record nothing more."""

from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.storage


def rate(client, key, card_id="gemm-core", version=0):
    return client.post(
        "/api/reviews",
        json={"card_id": card_id, "rating": 3, "version": version},
        headers={"Idempotency-Key": key},
    )


def test_a_repeated_key_returns_the_first_answer_and_logs_once(client, bank):
    first = rate(client, "k-1")
    again = rate(client, "k-1")
    assert (first.status_code, again.status_code) == (200, 200)
    assert first.json()["replayed"] is False
    assert again.json()["replayed"] is True
    assert again.json()["due"] == first.json()["due"]
    assert again.json()["version"] == first.json()["version"] == 1
    assert len(bank.logs()) == 1


def test_the_same_key_sent_at_once_logs_one_review(client, bank):
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: rate(client, "k-race"), range(4)))
    assert [a.status_code for a in answers] == [200] * 4
    assert sorted(a.json()["replayed"] for a in answers) == [False, True, True, True]
    assert len(bank.logs()) == 1


def test_a_new_key_with_a_stale_version_is_409(client, bank):
    assert rate(client, "k-a").status_code == 200
    stale = rate(client, "k-b")
    assert (stale.status_code, stale.json()["code"]) == (409, "version_conflict")
    assert len(bank.logs()) == 1


def test_an_undo_sent_twice_undoes_one_rating(client, bank):
    rate(client, "k-1")
    nxt = rate(client, "k-2", card_id="roofline")
    assert nxt.status_code == 200
    for _ in range(2):
        undone = client.post("/api/reviews/undo", headers={"Idempotency-Key": "u-1"})
        assert undone.status_code == 200
        assert undone.json()["card_id"] == "roofline"
    assert [log.undone_at is not None for log in bank.logs()] == [False, True]


def test_the_next_card_honours_the_scope_and_skips_held_cards(client):
    answer = client.post(
        "/api/reviews",
        params={"exclude": ["roofline"]},
        json={"card_id": "gemm-core", "rating": 3, "version": 0},
    )
    assert answer.status_code == 200
    assert answer.json()["next"]["id"] not in {"gemm-core", "roofline"}
    held = client.get("/api/study/next", params={"exclude": ["roofline"]}).json()
    assert held["id"] == answer.json()["next"]["id"]


def test_cards_held_by_the_client_count_against_the_daily_new_limit(client, bank):
    bank.configure(new_per_day=2)
    first = client.get("/api/study/next").json()
    second = client.get("/api/study/next", params={"exclude": [first["id"]]}).json()
    assert [first["id"], second["id"]] == ["gemm-core", "roofline"]
    beyond = client.get("/api/study/next", params={"exclude": [first["id"], second["id"]]})
    assert beyond.status_code == 204, "two new cards a day, both already held"

    answer = client.post(
        "/api/reviews",
        params={"exclude": [second["id"]]},
        json={"card_id": first["id"], "rating": 3, "version": first["version"]},
    )
    assert answer.json()["next"] is None or answer.json()["next"]["queue"] != "new"
