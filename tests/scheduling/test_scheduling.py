"""Scheduling: the intervals shown on the rating buttons are the ones a rating then gives."""

from datetime import UTC, datetime, timedelta

import pytest

from app.scheduling import schedule

TIMES = [
    datetime(2026, 3, 29, 0, 30, tzinfo=UTC),  # the night Europe moves its clocks
    datetime(2026, 11, 30, 9, 15, 42, 123456, tzinfo=UTC),
]


@pytest.mark.parametrize("now", TIMES)
@pytest.mark.parametrize("retention", [0.9, 0.8])
def test_a_new_cards_preview_is_what_each_rating_gives(now, retention):
    shown = schedule.preview(None, now, desired_retention=retention)
    for rating in schedule.RATINGS:
        after = schedule.review(None, rating, now, desired_retention=retention)
        assert shown[rating] == after.due - now


def test_preview_of_a_card_with_history_depends_on_when_it_is_shown():
    first = schedule.review(None, 3, TIMES[0])
    on_time = schedule.preview(first, first.due)
    late = schedule.preview(first, first.due + timedelta(days=30))
    assert on_time != late
    for rating in schedule.RATINGS:
        after = schedule.review(first, rating, TIMES[1])
        assert schedule.preview(first, TIMES[1])[rating] == (after.due - TIMES[1])


def test_a_callers_change_to_a_preview_does_not_leak_into_the_next():
    schedule.preview(None, TIMES[0]).clear()
    assert set(schedule.preview(None, TIMES[1])) == set(schedule.RATINGS)
