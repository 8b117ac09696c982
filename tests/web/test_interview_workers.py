"""Two workers over one database serve the same interview plan, and both follow a change."""

from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import select

from app.infra.models import DayPlan
from app.interview import readiness as readiness_module
from app.main import create_app
from tests.support.interview import bank_dir, days, set_state
from tests.support.web_bank import START, Clock

pytestmark = pytest.mark.storage

__all__ = ["bank_dir"]  # the bank of test_interview, three decks with follow-ups

ALL_CARDS = ("gemm-core", "roofline", "kv-cache", "fusion", "paged", "line", "tlb")


@pytest.fixture
def other(app: FastAPI) -> Iterator[tuple[TestClient, Clock]]:
    """A second worker over the same database, its clock at another hour of the same study day.

    Early in the day (05:00, the day starts at 04:00): a card last reviewed two days ago at noon
    is one whole day old then, two at noon.
    """
    clock = Clock(START - timedelta(hours=7))
    second = create_app(app.state.settings)
    second.state.database.upgrade()  # before its lifespan: written to first
    second.state.clock = lambda: clock.now
    with TestClient(second, follow_redirects=False, headers={"Accept-Language": "en"}) as client:
        yield client, clock


def fresh_process() -> None:
    """What a worker that has not yet planned for this learner holds in memory: nothing."""
    readiness_module._CACHE.clear()


def study_all(client: TestClient) -> list[str]:
    served = []
    while (nxt := client.get("/api/study/next")).status_code == 200:
        card = nxt.json()
        served.append(card["id"])
        rated = client.post(
            "/api/reviews", json={"card_id": card["id"], "rating": 3, "version": card["version"]}
        )
        assert rated.status_code == 200
        assert len(served) < 20
    return served


def readiness_of(client: TestClient, interview_id: int) -> dict:
    found = client.get(f"/api/interviews/{interview_id}/readiness").json()
    found.pop("interview")
    return found


def test_two_workers_serve_the_same_plan_and_follow_a_change(client, other, bank):
    second, _ = other
    for card_id in ALL_CARDS:  # nothing due: the queue serves only the plan
        set_state(bank, card_id, stability=3.0, days_ago=2, due_in=40)
    interview = client.post("/api/interviews", json={"name": "All", "date": days(6)}).json()

    fresh_process()
    first = readiness_of(client, interview["id"])
    fresh_process()
    assert readiness_of(second, interview["id"]) == first, "the same plan at another hour"

    # The first worker studies today's plan; the second, planning for the first time after
    # those ratings, still serves that plan (nothing left), not a new one made from them.
    served = study_all(client)
    assert served and set(served) <= set(ALL_CARDS)
    fresh_process()
    assert second.get("/api/study/next").status_code == 204
    assert client.get("/api/study/next").status_code == 204
    # Readiness follows the ratings in both.
    fresh_process()
    after = readiness_of(second, interview["id"])
    assert after["ready"] >= first["ready"] and after != first
    fresh_process()
    assert readiness_of(client, interview["id"]) == after

    # A change of interviews makes today's plan again, the same in both workers.
    with bank.database.session() as session:
        before = session.exec(select(DayPlan)).one()
    harder = client.post(
        "/api/interviews", json={"name": "Sooner", "date": days(2), "deck": "mock", "target": 0.97}
    ).json()
    fresh_process()
    nxt = second.get("/api/study/next")
    assert nxt.status_code == 200
    assert client.get("/api/study/next").json()["id"] == nxt.json()["id"]
    with bank.database.session() as session:
        remade = session.exec(select(DayPlan)).one()
    assert remade.basis != before.basis
    assert nxt.json()["id"] in remade.card_ids
    assert readiness_of(second, harder["id"]) == readiness_of(client, harder["id"])
