"""Readiness and the plan, from known FSRS states: the formula, the sums, the limits."""

from datetime import UTC, date, datetime, timedelta

import pytest
from fsrs import Scheduler

from app.interview.plan import Scheduling, chain, make_plan, recall
from app.scheduling import schedule
from app.scheduling.cardstate import CardStateValue, State

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
TODAY = date(2026, 12, 1)
DAY = date(2026, 12, 13)  # twelve days ahead
MOMENT = datetime(2026, 12, 13, 4, 0, tzinfo=UTC)  # the start of that study day


def plan_for(**changes: object) -> Scheduling:
    values: dict[str, object] = {
        "today": TODAY,
        "day": DAY,
        "moment": MOMENT,
        "now": NOW,
        "target": 0.9,
    }
    return Scheduling(**(values | changes))  # type: ignore[arg-type]


def reviewed(stability: float, days_ago: float, difficulty: float = 5.0) -> CardStateValue:
    last = NOW - timedelta(days=days_ago)
    return CardStateValue(
        state=State.REVIEW,
        step=None,
        stability=stability,
        difficulty=difficulty,
        due=last + timedelta(days=stability),
        last_review=last,
        reps=3,
        lapses=0,
    )


@pytest.mark.parametrize(("stability", "days_ago"), [(3.0, 2), (30.0, 5), (100.0, 40), (8.5, 0)])
def test_predicted_recall_on_the_day_is_fsrs_forgetting_curve(stability, days_ago):
    decay = -Scheduler().parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    elapsed = (MOMENT - (NOW - timedelta(days=days_ago))).days  # whole days, as FSRS counts
    expected = (1 + factor * elapsed / stability) ** decay
    assert recall(reviewed(stability, days_ago), plan_for()) == pytest.approx(expected)


def test_a_card_never_studied_has_no_recall():
    assert recall(None, plan_for()) == 0.0


def test_a_strong_card_needs_nothing_and_a_weak_one_is_brought_forward():
    strong = reviewed(400.0, 1)
    weak = reviewed(4.0, 3)  # due in a day, forgotten long before the interview
    plan = make_plan([("strong", strong), ("weak", weak)], plan_for())
    assert recall(strong, plan_for()) >= 0.9 > recall(weak, plan_for())
    planned = [card for day in plan.days for card in day.card_ids]
    assert "strong" not in planned
    assert planned.count("weak") >= 1
    assert plan.unreachable == ()
    # Following the plan, rated Good each time, the weak card is ready on the day.
    state = weak
    for offset, day in enumerate(plan.days):
        for _ in range(day.card_ids.count("weak")):
            state = schedule.review(state, 3, NOW + timedelta(days=offset), desired_retention=0.9)
    assert recall(state, plan_for()) >= 0.9


def test_the_daily_counts_sum_to_what_the_cards_need():
    cards = [(f"new{i}", None) for i in range(40)]
    cards += [(f"old{i}", reviewed(2.0 + i % 7, 1 + i % 5)) for i in range(40)]
    plan = make_plan(cards, plan_for())
    assert len(plan.days) == 12
    assert [d.day for d in plan.days] == [TODAY + timedelta(days=i) for i in range(12)]
    # Every card's chain is there, whole: the sum of the days is the sum of the chains.
    per_card: dict[str, int] = {}
    for day in plan.days:
        for card in day.card_ids:
            per_card[card] = per_card.get(card, 0) + 1
    assert sum(d.reviews for d in plan.days) == plan.total == sum(per_card.values())
    assert set(per_card) == {c for c, s in cards if recall(s, plan_for()) < 0.9}
    assert sum(d.new for d in plan.days) == 40
    assert plan.per_day == max(d.reviews for d in plan.days)
    # Each new card is learned (graduated) and seen again on a later day before the interview.
    firsts = {}
    for i, day in enumerate(plan.days):
        for card in day.card_ids:
            firsts.setdefault(card, set()).add(i)
    new = {card: days for card, days in firsts.items() if card.startswith("new")}
    assert len(new) == 40
    assert all(len(days) >= 2 for days in new.values())
    assert plan.warnings == ()


def test_the_plan_says_so_when_it_needs_more_than_the_limits():
    cards = [(f"new{i}", None) for i in range(60)]
    tight = make_plan(cards, plan_for(new_per_day=3, max_reviews_per_day=10))
    assert max(d.new for d in tight.days) > 3
    assert f"over_new|{max(d.new for d in tight.days)}|3" in tight.warnings
    assert f"over_reviews|{tight.per_day}|10" in tight.warnings
    roomy = make_plan(cards, plan_for(new_per_day=20, max_reviews_per_day=200))
    assert roomy.warnings == ()
    assert max(d.new for d in roomy.days) <= 20


def test_for_an_interview_tomorrow_new_cards_are_learned_today():
    tomorrow = TODAY + timedelta(days=1)
    plan = make_plan([("new", None)], plan_for(day=tomorrow, moment=MOMENT - timedelta(days=11)))
    # Both learning steps today; no day is left for a review a day later.
    assert [d.card_ids for d in plan.days] == [("new", "new")]
    assert plan.days[0].new == 1
    assert plan.unreachable == ()


def test_on_the_day_itself_there_is_nothing_left_to_plan():
    weak = reviewed(2.0, 10)
    plan = make_plan([("weak", weak)], plan_for(day=TODAY, moment=NOW))
    assert plan.days == ()
    assert plan.unreachable == ("weak",)


def test_a_chain_that_cannot_start_in_time_is_refused():
    assert chain(None, 0, plan_for(day=TODAY)) is None
