"""Cards written straight into a bank, for tests of scheduling that need no content files."""

from sqlmodel import Session

from app.models import Card, Deck


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
    session.commit()
    return ids
