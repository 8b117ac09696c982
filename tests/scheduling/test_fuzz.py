"""Interval fuzz and load balancing: within the documented range, the same for the same card."""

from collections import Counter
from datetime import UTC, date, datetime, timedelta

import pytest

from app.scheduling import schedule
from app.scheduling.cardstate import CardStateValue, State
from app.scheduling.schedule import Spread, fuzz_range, spread_interval

NOW = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)  # a Monday
TODAY = date(2025, 3, 3)


@pytest.mark.parametrize(
    ("days", "expected"),
    [(3, (2, 4)), (7, (5, 9)), (10, (8, 12)), (20, (17, 23)), (100, (93, 107))],
)
def test_the_fuzz_range_is_fsrs_and_ankis(days: int, expected: tuple[int, int]) -> None:
    assert fuzz_range(days) == expected


def test_the_fuzz_range_stops_at_the_maximum_interval() -> None:
    assert fuzz_range(36500) == (34673, 36500)


def test_intervals_under_three_days_and_learning_steps_are_not_fuzzed() -> None:
    spread = Spread(seed="card")
    for interval in (timedelta(days=1), timedelta(days=2), timedelta(minutes=10)):
        assert all(spread_interval(interval, spread, reps) == interval for reps in range(50))


@pytest.mark.parametrize("days", [3, 8, 30, 365])
def test_fuzz_stays_in_its_range_is_the_same_per_card_and_spreads_cards(days: int) -> None:
    low, high = fuzz_range(days)
    given = [spread_interval(timedelta(days=days), Spread(seed=f"c{n}"), 4) for n in range(400)]
    assert all(timedelta(days=low) <= g <= timedelta(days=high) for g in given)
    again = [spread_interval(timedelta(days=days), Spread(seed=f"c{n}"), 4) for n in range(400)]
    assert given == again
    # Cards reviewed on one day with one interval land on every day of the range.
    assert {g.days for g in given} == set(range(low, high + 1))
    # The next review of the same card draws again.
    later = [spread_interval(timedelta(days=days), Spread(seed=f"c{n}"), 5) for n in range(400)]
    assert later != given


def review_card(stability: float = 20.0) -> CardStateValue:
    return CardStateValue(
        State.REVIEW, None, stability, 5.0, NOW, NOW - timedelta(days=15), reps=6, lapses=0
    )


@pytest.mark.parametrize("state", [None, review_card()], ids=["new", "review"])
def test_the_buttons_show_the_fuzzed_interval_the_rating_gives(
    state: CardStateValue | None,
) -> None:
    for n in range(30):
        spread = Spread(seed=f"card-{n}")
        shown = schedule.preview(state, NOW, spread=spread)
        for rating in schedule.RATINGS:
            after = schedule.review(state, rating, NOW, spread=spread)
            assert shown[rating] == after.due - NOW


def test_load_balancing_prefers_the_lighter_days_of_the_range() -> None:
    low, high = fuzz_range(30)
    busy = dict.fromkeys(range(low, high + 1), 50)
    busy[31] = 0
    spread = Spread(seed="x", load=lambda lo, hi: busy, today=TODAY)
    given = Counter(spread_interval(timedelta(days=30), spread, reps).days for reps in range(200))
    assert given.most_common(1)[0][0] == 31
    assert given[31] > 0.9 * 200


def test_easy_days_get_few_cards_unless_every_day_is_one() -> None:
    weekend = frozenset({5, 6})
    days = [
        TODAY
        + spread_interval(
            timedelta(days=30),
            Spread(seed=f"c{n}", load=lambda lo, hi: {}, today=TODAY, easy_days=weekend),
            3,
        )
        for n in range(300)
    ]
    assert sum(day.weekday() in weekend for day in days) < 0.06 * len(days)
    # Three days out with six easy days: the range (2-4 days) is Wednesday to Friday.
    every = Spread(seed="y", load=lambda lo, hi: {}, today=TODAY, easy_days=frozenset(range(6)))
    assert {spread_interval(timedelta(days=3), every, r).days for r in range(100)} == {2, 3, 4}
