"""The workload simulator: its curves over desired retention, on the settings page and the API."""

from collections.abc import Iterator
from itertools import pairwise

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.bank import open_engine
from app.config import Settings
from app.main import create_app
from app.models import Card, Deck
from app.parameters import DEFAULT_PARAMETERS
from app.simulate import RETENTIONS, Workload, workload


@pytest.fixture(scope="module")
def curve() -> dict[float, object]:
    points = workload(DEFAULT_PARAMETERS, cards=400, new_per_day=10, max_reviews_per_day=9999)
    return {point.retention: point for point in points}


def test_the_curve_covers_desired_retention_from_070_to_097(curve: dict) -> None:
    assert tuple(curve) == RETENTIONS
    assert RETENTIONS == (0.70, 0.73, 0.76, 0.79, 0.82, 0.85, 0.88, 0.91, 0.94, 0.97)


def test_more_retention_costs_more_reviews_and_time_and_keeps_more_cards(curve: dict) -> None:
    # Across steps of 0.03 the simulation's chance does not outweigh the effect.
    for low, high in pairwise(RETENTIONS):
        assert curve[low].reviews_per_day < curve[high].reviews_per_day, (low, high)
        assert curve[low].remembered < curve[high].remembered, (low, high)
    for low, high in pairwise(RETENTIONS[3:]):
        assert curve[low].minutes_per_day < curve[high].minutes_per_day, (low, high)


def test_the_advice_is_the_retention_with_the_least_time_per_card_remembered() -> None:
    points = workload(DEFAULT_PARAMETERS, cards=400, new_per_day=10, max_reviews_per_day=9999)
    shown = Workload(
        cards=400, new_per_day=10, max_reviews_per_day=9999, personal=False, points=points
    )
    assert shown.best is not None
    assert shown.best.minutes_per_card == min(p.minutes_per_card for p in points)
    # Past 0.95 each card remembered costs ever more: the advice is never the top.
    assert shown.best.retention < 0.95


def test_a_daily_review_limit_caps_the_simulated_reviews() -> None:
    capped = workload(DEFAULT_PARAMETERS, cards=400, new_per_day=10, max_reviews_per_day=15)
    assert all(point.reviews_per_day <= 15 for point in capped)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), headers={"Accept-Language": "en"}) as client:
        yield client


def add_cards(settings: Settings, count: int) -> None:
    with Session(open_engine(settings)) as session:
        deck = Deck(slug="w", title="W", path="decks/w.md")
        session.add(deck)
        session.flush()
        session.add_all(
            Card(
                id=f"w-{n}",
                deck_id=deck.id,
                position=n,
                question=f"Q{n}",
                question_html=f"<p>Q{n}</p>",
                answer_html=f"<p>A{n}</p>",
            )
            for n in range(count)
        )
        session.commit()


def test_the_settings_page_draws_the_curve_and_marks_the_advice(
    settings: Settings, client: TestClient
) -> None:
    add_cards(settings, 120)
    data = client.get("/api/simulate").json()
    assert (data["cards"], data["days"], data["personal_parameters"]) == (120, 365, False)
    assert [p["retention"] for p in data["points"]] == list(RETENTIONS)
    best = min(data["points"], key=lambda p: p["minutes_per_card"])
    assert data["best_retention"] == best["retention"]

    page = client.get("/settings").text
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart workload" role="img"' in page
    assert page.count('<g class="point">') == 10
    assert f"<title>{best['retention']:.2f}: the least time per card remembered</title>" in page
    assert (
        f"Help me decide: at a desired retention of {best['retention']:.2f} each card remembered "
        f"costs the least time ({best['minutes_per_card']:.1f} min a card). Yours is 0.90."
    ) in page
    zh = client.get("/settings", headers={"Accept-Language": "zh"}).text
    assert f"帮我决定：目标记忆保持率 {best['retention']:.2f} 时" in zh


def test_an_empty_bank_has_no_workload(client: TestClient) -> None:
    data = client.get("/api/simulate").json()
    assert (data["cards"], data["best_retention"], data["points"]) == (0, None, [])
    page = client.get("/settings").text
    assert "The bank is empty or new cards per day is 0: there is no workload to simulate." in page
