"""The workload simulator: its curves over desired retention, on the settings page and the API."""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest
from fastapi.testclient import TestClient
from fsrs_rs_python import Card as EngineCard

from app.config import Settings
from app.infra.db import database_of
from app.infra.models import Card, Deck
from app.main import create_app
from app.scheduling import simulate
from app.scheduling.parameters import DEFAULT_PARAMETERS
from app.scheduling.simulate import COARSE, DAYS, Bank, Workload, workload, workload_point
from app.scheduling.simulate_reviews import Seen, simulate_seen
from app.study import get_learner, record_review
from app.study.marks import suspend
from tests.support.banks import bank_session, commit


def new_bank(cards: int) -> Bank:
    return Bank(new=cards)


@pytest.fixture(scope="module")
def curve() -> dict[float, object]:
    points = workload(DEFAULT_PARAMETERS, new_bank(400), new_per_day=10, max_reviews_per_day=9999)
    return {point.retention: point for point in points}


def test_the_curve_is_every_003_and_every_001_around_its_cheapest_point(curve: dict) -> None:
    assert COARSE == (0.70, 0.73, 0.76, 0.79, 0.82, 0.85, 0.88, 0.91, 0.94, 0.97)
    assert set(COARSE) <= set(curve)
    fine = sorted(set(curve) - set(COARSE))
    cheapest = min((curve[r] for r in COARSE), key=lambda p: p.minutes_per_card).retention
    assert fine == [
        r for r in (round(cheapest + step / 100, 2) for step in (-2, -1, 1, 2)) if 0.70 <= r <= 0.97
    ]
    assert list(curve) == sorted(curve)


def test_more_retention_costs_more_reviews_and_time_and_keeps_more_cards(curve: dict) -> None:
    # Across steps of 0.03 the simulation's chance does not outweigh the effect.
    for low, high in pairwise(COARSE):
        assert curve[low].reviews_per_day < curve[high].reviews_per_day, (low, high)
        assert curve[low].remembered < curve[high].remembered, (low, high)
    for low, high in pairwise(COARSE[3:]):
        assert curve[low].minutes_per_day < curve[high].minutes_per_day, (low, high)


def test_the_advice_is_the_retention_with_the_least_time_per_card_remembered(
    curve: dict,
) -> None:
    points = tuple(curve.values())
    shown = Workload(
        cards=400, new_per_day=10, max_reviews_per_day=9999, personal=False, points=points
    )
    assert shown.best is not None
    assert shown.best.minutes_per_card == min(p.minutes_per_card for p in points)
    # Past 0.95 each card remembered costs ever more: the advice is never the top.
    assert shown.best.retention < 0.95


def test_a_daily_review_limit_caps_the_simulated_reviews() -> None:
    capped = workload(DEFAULT_PARAMETERS, new_bank(400), new_per_day=10, max_reviews_per_day=15)
    assert capped
    assert all(point.reviews_per_day <= 15 for point in capped)


# Cards already in the learner's schedule start from where they stand.


def settled(count: int, stability: float) -> tuple[Seen, ...]:
    """Cards last reviewed long ago at `stability`, falling due evenly over the coming weeks."""
    return tuple(
        Seen(stability=stability, difficulty=5.0, last=-int(stability), due=n % 60)
        for n in range(count)
    )


def test_a_bank_already_learned_well_needs_fewer_reviews_than_a_new_one() -> None:
    fresh = workload(
        DEFAULT_PARAMETERS,
        new_bank(400),
        new_per_day=20,
        max_reviews_per_day=9999,
        retentions=COARSE,
    )
    learned = workload(
        DEFAULT_PARAMETERS,
        Bank(new=0, seen=settled(400, 120.0), seen_total=400),
        new_per_day=20,
        max_reviews_per_day=9999,
        retentions=COARSE,
    )
    assert fresh
    for new, old in zip(fresh, learned, strict=True):
        assert old.reviews_per_day < new.reviews_per_day / 2, new.retention
        assert old.minutes_per_day < new.minutes_per_day / 2, new.retention


def test_the_studied_cards_curve_rises_with_retention_even_every_001() -> None:
    bank = Bank(new=0, seen=settled(300, 20.0), seen_total=300)
    retentions = tuple(round(0.70 + step / 100, 2) for step in range(28))
    points = workload(
        DEFAULT_PARAMETERS, bank, new_per_day=20, max_reviews_per_day=9999, retentions=retentions
    )
    # Each card meets the same luck at every retention, so the curve moves with retention,
    # hardly with chance: reviews rise at every step; minutes (fewer lapses to relearn) and
    # cards remembered may dip a little between neighbours, never across 0.03.
    assert len(points) > 3
    for low, high in pairwise(points):
        assert low.reviews_per_day < high.reviews_per_day, (low.retention, high.retention)
        assert high.minutes_per_day > 0.97 * low.minutes_per_day, (low.retention, high.retention)
        assert high.remembered > 0.99 * low.remembered, (low.retention, high.retention)
    for low, high in pairwise(points[::3]):
        assert low.minutes_per_day < high.minutes_per_day, (low.retention, high.retention)
        assert low.remembered < high.remembered, (low.retention, high.retention)


def test_a_sample_of_studied_cards_stands_for_all_of_them() -> None:
    cards = settled(600, 20.0)
    whole = workload_point(
        DEFAULT_PARAMETERS,
        Bank(new=0, seen=cards, seen_total=600),
        0.9,
        new_per_day=0,
        max_reviews_per_day=9999,
    )
    sample = workload_point(
        DEFAULT_PARAMETERS,
        Bank(new=0, seen=cards[::3], seen_total=600),
        0.9,
        new_per_day=0,
        max_reviews_per_day=9999,
    )
    assert sample.reviews_per_day == pytest.approx(whole.reviews_per_day, rel=0.15)
    assert sample.remembered == pytest.approx(whole.remembered, rel=0.05)


def test_the_daily_limit_holds_for_new_and_studied_cards_together() -> None:
    bank = Bank(new=400, seen=settled(400, 3.0), seen_total=400)
    points = workload(
        DEFAULT_PARAMETERS, bank, new_per_day=20, max_reviews_per_day=40, retentions=(0.8, 0.95)
    )
    assert len(points) == 2
    for point in points:
        assert point.reviews_per_day <= 40


def test_a_card_due_after_the_year_is_only_remembered() -> None:
    card = Seen(stability=400.0, difficulty=5.0, last=-30, due=500)
    result = simulate_seen(DEFAULT_PARAMETERS, [card], 0.9, budget=[9999] * DAYS, seed=1)
    assert sum(result.reviews_per_day) == 0 and sum(result.seconds_per_day) == 0
    engine_card = EngineCard()
    engine_card.stability, engine_card.last_date = 400.0, -30.0
    assert result.remembered == pytest.approx(engine_card.retention_on(DAYS - 1))


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), headers={"Accept-Language": "en"}) as client:
        yield client


def add_cards(settings: Settings, count: int) -> None:
    with bank_session(settings) as session:
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
        commit(session)


def test_the_settings_page_draws_the_curve_and_marks_the_advice(
    settings: Settings, client: TestClient
) -> None:
    add_cards(settings, 120)
    data = client.get("/api/simulate").json()
    assert (data["cards"], data["days"], data["personal_parameters"]) == (120, 365, False)
    assert (data["seen"], data["sampled"]) == (0, None)
    retentions = [p["retention"] for p in data["points"]]
    assert set(COARSE) <= set(retentions) and retentions == sorted(retentions)
    assert 12 <= len(retentions) <= 14
    best = min(data["points"], key=lambda p: p["minutes_per_card"])
    assert data["best_retention"] == best["retention"]

    page = client.get("/settings").text
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart workload" role="img"' in page
    assert page.count('<g class="point">') == len(retentions)
    assert f"<title>{best['retention']:.2f}: the least time per card remembered</title>" in page
    assert (
        f"Help me decide: at a desired retention of {best['retention']:.2f} each card remembered "
        f"costs the least time ({best['minutes_per_card']:.1f} min a card). Yours is 0.90."
    ) in page
    assert f"least time {best['retention']:.2f}</text>" in page
    zh = client.get("/settings", headers={"Accept-Language": "zh"}).text
    assert f"帮我决定：目标记忆保持率 {best['retention']:.2f} 时" in zh
    # Advice at the bottom of the range says that it is the bottom.
    lowest = "0.70 is the lowest retention simulated here, and the lowest the setting allows."
    assert (lowest in page) == (best["retention"] == 0.70)
    if best["retention"] == 0.70:
        assert "你现在的设置是 0.90。0.70 是这里模拟的最低值" in zh


def test_an_empty_bank_has_no_workload(client: TestClient) -> None:
    data = client.get("/api/simulate").json()
    assert (data["cards"], data["best_retention"], data["points"]) == (0, None, [])
    page = client.get("/settings").text
    assert "The bank is empty or new cards per day is 0: there is no workload to simulate." in page


def study(settings: Settings, cards: int, *, at: datetime) -> None:
    """The local learner rates the first `cards` cards Good once, through the study code."""
    with bank_session(settings) as session:
        database = database_of(session)
        learner = get_learner(session, settings.learner_name, settings.timezone)
        for n in range(cards):
            record_review(
                session, learner=learner, card_id=f"w-{n}", rating=3, now=at, database=database
            )


def test_the_curve_starts_from_the_cards_the_learner_has_studied(
    settings: Settings, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_cards(settings, 120)
    fresh = client.get("/api/simulate").json()
    study(settings, 80, at=datetime.now(UTC) - timedelta(days=2))
    monkeypatch.setattr(simulate, "SAMPLE", 50)
    data = client.get("/api/simulate").json()
    assert (data["cards"], data["seen"], data["sampled"]) == (120, 80, 50)
    # Cards learned two days ago are due now: a heavier start than 20 new cards a day.
    assert data["points"][0]["reviews_per_day"] != fresh["points"][0]["reviews_per_day"]
    page = client.get("/settings").text
    assert (
        "your bank of 120 cards (80 already in your schedule, each starting from where it "
        "stands, and 40 still new), 20 new cards"
    ) in page
    assert (
        "To keep this page quick, your 80 studied cards are simulated through an even sample of "
        "50 of them"
    ) in page
    zh = client.get("/settings", headers={"Accept-Language": "zh"}).text
    assert "你学过的 80 张卡按到期日均匀抽取 50 张来模拟" in zh


def test_a_suspended_card_is_left_out_of_the_simulation(
    settings_database, settings: Settings, client: TestClient
) -> None:
    add_cards(settings, 30)
    with settings_database.session() as session:
        learner = get_learner(session, settings.learner_name, settings.timezone)
        suspend(
            session,
            learner=learner,
            card_id="w-0",
            now=datetime.now(UTC),
            database=settings_database,
        )
    assert client.get("/api/simulate").json()["cards"] == 29
