"""Cards learned together spread out; load balancing and easy days through the study loop."""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.config import Settings
from app.infra.db import database_of
from app.infra.models import Learner
from app.main import create_app
from app.study import Filters, get_learner, next_card, record_review
from tests.support import cards

START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)  # a Monday morning


def make_cards(session: Session, count: int) -> list[str]:
    return cards.make_cards(session, count, slug="spread", prefix="s-")


def learn_together(session: Session, learner: Learner, cards: list[str], days: int) -> dict:
    """Rate every card Easy on day 0, then Good whenever it is due; return the due dates."""
    database = database_of(session)
    due = {}
    for card in cards:
        due[card] = record_review(
            session, learner=learner, card_id=card, rating=4, now=START, database=database
        ).state.due
    for day in range(1, days):
        now = START + timedelta(days=day)
        for card in cards:
            if due[card] <= now:
                shown = next_card(session, learner=learner, now=now, filters=Filters(), pinned=card)
                assert shown is not None and shown.card.id == card
                rated = record_review(
                    session, learner=learner, card_id=card, rating=3, now=now, database=database
                )
                # The button showed exactly the interval the rating gave.
                assert rated.state.due - now == shown.intervals[3]
                due[card] = rated.state.due
    return due


def test_cards_learned_together_come_due_on_different_days(session: Session, make_learner) -> None:
    learner = make_learner()
    cards = make_cards(session, 40)
    due = learn_together(session, learner, cards, days=60)
    days = {moment.date() for moment in due.values()}
    assert len(days) >= 8, sorted(days)


def test_easy_days_take_few_reviews_with_load_balancing(session: Session, make_learner) -> None:
    plain = make_learner()
    balanced = make_learner(load_balance=True, easy_days="56")
    cards = make_cards(session, 40)
    weekend = {
        learner.name: sum(
            moment.weekday() >= 5
            for moment in learn_together(session, learner, cards, days=60).values()
        )
        for learner in (plain, balanced)
    }
    assert weekend[balanced.name] <= 2 < weekend[plain.name], weekend


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(
        create_app(settings), follow_redirects=False, headers={"Accept-Language": "en"}
    ) as client:
        yield client


FORM = {
    "desired_retention": "0.9",
    "new_per_day": "20",
    "max_reviews_per_day": "200",
    "rollover_hour": "4",
    "timezone": "UTC",
}


def test_the_settings_page_sets_load_balancing_and_easy_days(
    settings_database, settings: Settings, client: TestClient
) -> None:
    page = client.get("/settings").text
    assert 'name="load_balance" value="1">' in page
    assert page.count('name="easy_days"') == 7

    form = {**FORM, "load_balance": "1", "easy_days": ["6", "5"]}
    assert client.post("/settings", data=form).status_code == 303
    with settings_database.session() as session:
        learner = get_learner(session, settings.learner_name)
        assert (learner.load_balance, learner.easy_days) == (True, "56")
    page = client.get("/settings").text
    assert 'name="load_balance" value="1" checked>' in page
    assert 'name="easy_days" value="5" checked> Sat' in page

    assert client.post("/settings", data=FORM).status_code == 303
    with settings_database.session() as session:
        learner = get_learner(session, settings.learner_name)
        assert (learner.load_balance, learner.easy_days) == (False, "")

    refused = client.post("/settings", data={**FORM, "easy_days": ["7"]})
    assert refused.status_code == 400
    assert "easy days must be weekdays 0 (Monday) to 6 (Sunday)" in refused.text
    every = client.post("/settings", data={**FORM, "easy_days": list("0123456")})
    assert every.status_code == 400
    assert "at most six easy days" in every.text
