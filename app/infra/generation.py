"""The bank's generation: moved on by every import that changes cards, decks or topics.

Content writes it in the import's own transaction; the study side keys its cache of card views
by it (app.study.cardview), so a view built from old content is never served after the commit.
"""

from sqlalchemy import func, update
from sqlmodel import Session, select

from app.infra.models import BankInfo, table_of

# The bank's generation, as a column for statements that want it along.
GENERATION = func.coalesce(select(BankInfo.generation).where(BankInfo.id == 1).scalar_subquery(), 0)


def bank_generation(session: Session) -> int:
    """The bank's generation (0 until the first import that changed something)."""
    return session.execute(select(GENERATION)).scalar_one()


def bump_generation(session: Session) -> None:
    """Move the generation on; call in the transaction that changes cards, decks or topics."""
    table = table_of(BankInfo)
    moved = session.connection().execute(
        update(table).where(table.c.id == 1).values(generation=table.c.generation + 1)
    )
    if moved.rowcount == 0:  # a schema created from the models has no row yet
        session.add(BankInfo(id=1, generation=1))
        session.flush()
