"""Cloze and reversed cards through an import on both databases: kinds and forms stored, and ids
that survive editing the text around a deletion, so the learner's schedule stays."""

import pytest
from sqlmodel import Session, col, select

from app.content.bank.sync import import_content
from app.infra.models import Card
from tests.support.cloze_notes import GPU, NOTES
from tests.support.content_files import WriteContent

pytestmark = pytest.mark.storage


def active(session: Session) -> dict[str, Card]:
    # In content order: PostgreSQL returns an unordered query's rows as they lie on disk.
    query = select(Card).where(col(Card.retired).is_(False)).order_by(col(Card.ordinal))
    return {card.id: card for card in session.exec(query)}


def test_kinds_forms_and_ids_across_an_edit(database, engine, write_content: WriteContent) -> None:
    import_content(write_content(NOTES), database)
    with Session(engine) as session:
        before = active(session)
    kinds = sorted(card.kind for card in before.values())
    assert kinds.count("cloze") == 9 and kinds.count("reversed") == 4 and kinds.count("basic") == 1
    cloze = next(c for c in before.values() if c.question.startswith("The H100 SXM has […]"))
    assert cloze.source_path == "gpu.md" and cloze.source_line == 5
    assert 'class="cloze-blank"' in cloze.front_html and "132" in cloze.answer_html
    assert cloze.anki_fields["text"].startswith("<p>The H100 SXM has {{c1::132}} SMs")
    reverse = next(c for c in before.values() if c.id.endswith(".r"))
    assert reverse.question.startswith("a plot of") and "roofline" in reverse.answer_html
    # Plain cards keep their empty front.
    assert all(c.front_html == "" for c in before.values() if c.kind != "cloze")

    edited = GPU.replace("The H100 SXM has", "An H100 SXM GPU has").replace(
        "for peak $P$", "at peak compute $P$"
    )
    import_content(write_content({"gpu.md": edited}), database)
    with Session(engine) as session:
        after = active(session)
        retired = session.exec(select(Card.id).where(col(Card.retired).is_(True))).all()
    assert set(after) == set(before) and retired == []
    assert after[cloze.id].question.startswith("An H100 SXM GPU has […]")
