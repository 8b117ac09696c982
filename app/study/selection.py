"""The cards a practice run or a mock interview asks: the scope's, in content order."""

from datetime import datetime

from sqlmodel import Session, col, select

from app.infra.models import Card, Deck, Learner
from app.study.filters import Filters
from app.study.marks import held_cards


def scope_card_ids(
    session: Session,
    *,
    filters: Filters,
    learner: Learner,
    now: datetime,
    skip_held: bool = True,
    spoken_only: bool = False,
) -> list[str]:
    """The ids of the active cards in scope in content order, held (suspended, buried) ones out.

    `skip_held=False` keeps the held cards: a mock interview asks what an interviewer could.
    `spoken_only` leaves out cloze cards, which no interviewer asks aloud.
    """
    query = select(Card.id).join(Deck, col(Deck.id) == Card.deck_id)
    if spoken_only:
        query = query.where(col(Card.kind) != "cloze")
    if skip_held:
        query = query.where(col(Card.id).not_in(held_cards(learner.id, now)))
    # The ordinal is content order as the import numbers it; deck path and position order
    # cards written without one (tests, a restore) the same way.
    order = (col(Card.ordinal), col(Deck.path), col(Card.position))
    return list(session.exec(filters.apply(query.order_by(*order))))
