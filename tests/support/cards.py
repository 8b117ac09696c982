"""Cards written straight into a bank, for tests of scheduling that need no content files."""

from datetime import datetime, timedelta

from sqlmodel import Session

from app.infra.db import Database
from app.infra.models import Card, CardState, Deck
from app.scheduling.cardstate import State
from tests.support.banks import commit


def make_cards(session: Session, count: int, *, slug: str, prefix: str) -> list[str]:
    """`count` cards `<prefix>0`, `<prefix>1`, … in a new deck `slug`, in that order."""
    deck = Deck(slug=slug, title=slug.title(), path=f"decks/{slug}.md")
    session.add(deck)
    session.flush()
    ids = [f"{prefix}{n:03d}" for n in range(count)]
    session.add_all(
        Card(
            id=card_id,
            deck_id=deck.id,
            position=n,
            question=f"Q{n}",
            question_html=f"<p>Q{n}</p>",
            answer_html=f"<p>A{n}</p>",
        )
        for n, card_id in enumerate(ids)
    )
    commit(session)
    return ids


def lapsed_review(
    database: Database, learner_id: int, card_id: str, lapses: int, now: datetime
) -> None:
    """A hand-built state: the card in review, due at `now`, lapsed `lapses` times already."""
    with database.session() as session:
        session.add(
            CardState(
                learner_id=learner_id,
                card_id=card_id,
                state=int(State.REVIEW),
                stability=2.0,
                difficulty=8.0,
                due=now - timedelta(hours=1),
                last_review=now - timedelta(days=3),
                reps=lapses * 2 + 1,
                lapses=lapses,
                version=1,
            )
        )
        commit(session)
