"""A rating made offline is recorded at the time it was made, within a week, and only once."""

from datetime import timedelta, timezone

import pytest

pytestmark = pytest.mark.storage


def rate(client, key, *, card_id="gemm-core", rating=3, version=0, at=None):
    body = {"card_id": card_id, "rating": rating, "version": version}
    if at is not None:
        body["reviewed_at"] = at
    return client.post("/api/reviews", json=body, headers={"Idempotency-Key": key})


def logged_at(bank):
    return [log.reviewed_at.replace(tzinfo=None) for log in bank.logs()]


def naive(moment):
    return moment.replace(tzinfo=None)


def test_a_rating_is_recorded_and_scheduled_at_the_time_it_was_made(client, bank, clock):
    made = clock.now - timedelta(hours=3)
    # Sent with the device's own offset.
    answer = rate(client, "k-1", at=made.astimezone(timezone(timedelta(hours=8))).isoformat())
    assert answer.status_code == 200
    assert logged_at(bank) == [naive(made)]
    state = bank.state("gemm-core")
    assert naive(state.last_review) == naive(made)
    # Its learning step counts from then: due three hours ago plus the step, not from now.
    assert naive(state.due) < naive(clock.now)


def test_the_same_rating_sent_again_is_recorded_once(client, bank, clock):
    made = (clock.now - timedelta(minutes=30)).isoformat()
    first, again = rate(client, "k-1", at=made), rate(client, "k-1", at=made)
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json()["replayed"] is True
    assert len(bank.logs()) == 1


@pytest.mark.parametrize(
    ("offset", "recorded"),
    [
        (timedelta(days=30), timedelta(days=7)),  # older than the window: its far end
        (timedelta(hours=-2), timedelta(0)),  # in the future: now
    ],
)
def test_a_time_outside_the_window_is_bounded(client, bank, clock, offset, recorded):
    assert rate(client, "k-1", at=(clock.now - offset).isoformat()).status_code == 200
    assert logged_at(bank) == [naive(clock.now - recorded)]


def test_a_later_rating_of_the_card_is_never_recorded_before_the_one_before(client, bank, clock):
    assert rate(client, "k-1", rating=1).status_code == 200
    early = (clock.now - timedelta(hours=1)).isoformat()
    assert rate(client, "k-2", rating=3, version=1, at=early).status_code == 200
    first, second = logged_at(bank)
    assert second == first == naive(clock.now)


def test_a_time_without_an_offset_is_refused(client, bank, clock):
    answer = rate(client, "k-1", at=naive(clock.now).isoformat())
    assert answer.status_code == 422
    assert bank.logs() == []
