"""Follow-up questions in the database: rows with stable ids, history kept, Anki and search."""

from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.content.bank.sync import import_content
from app.content.errors import ContentErrors
from app.infra.models import Card, Followup
from tests.support.anki_export import export
from tests.support.content_files import WriteContent
from tests.support.followups import PROSE, QUESTIONS
from tests.support.imports import MakeLearner, add_history, counts, history

pytestmark = pytest.mark.storage


def followups(engine: Engine) -> list[tuple[str, str, int, str, str]]:
    """(id, card id, position, question HTML, answer HTML) of every follow-up, in order."""
    with Session(engine) as session:
        rows = session.exec(
            select(Followup).order_by(col(Followup.card_id), col(Followup.position))
        ).all()
        return [(r.id, r.card_id, r.position, r.question_html, r.answer_html) for r in rows]


def ids(engine: Engine) -> list[str]:
    return [row[0] for row in followups(engine)]


def test_questions_become_rows_with_rendered_math(
    database, write_content: WriteContent, engine: Engine
) -> None:
    root = write_content({"decks/attention.md": QUESTIONS})
    assert counts(import_content(root, database)) == {"added": 2}
    rows = followups(engine)
    assert [(r[0], r[1], r[2]) for r in rows] == [("fa.f1", "fa", 0), ("fa-head-dim", "fa", 1)]
    assert rows[0][3] == "backward 不存 attention matrix 怎么求梯度？"
    assert rows[0][4].startswith('<p>前向只存每行的 logsumexp <span class="katex">')
    assert "<math" in rows[0][4]
    with database.session() as session:
        card = session.get(Card, "fa")
        assert card is not None
        # The prose stays the card's follow-ups HTML; the questions are not repeated in it.
        assert card.followups_html == "<p>回答里要点出 IO-aware。</p>\n"
        assert "logsumexp" not in card.followups_html


def test_reimport_keeps_ids_and_updates_changed_answers(
    database, write_content: WriteContent, engine: Engine
) -> None:
    root = write_content({"decks/attention.md": QUESTIONS})
    import_content(root, database)
    before = followups(engine)
    assert counts(import_content(root, database)) == {"unchanged": 2}
    assert followups(engine) == before

    write_content({"decks/attention.md": QUESTIONS.replace("每块放得下的行变少", "块变小")})
    assert counts(import_content(root, database)) == {"updated": 1, "unchanged": 1}
    after = followups(engine)
    assert [r[0] for r in after] == ["fa.f1", "fa-head-dim"]
    assert after[0] == before[0]
    assert after[1][4] == "<p>SRAM 固定，块变小。</p>\n"


def test_inserting_a_question_moves_derived_ids_but_not_explicit_ones(
    database, write_content: WriteContent, engine: Engine
) -> None:
    root = write_content({"decks/attention.md": QUESTIONS})
    import_content(root, database)
    new = "- 追问：decode 时有用吗？\n  答：收益小，decode 是读 KV。\n"
    inserted = QUESTIONS.replace("- 追问：backward", new + "- 追问：backward")
    write_content({"decks/attention.md": inserted})
    import_content(root, database)
    rows = followups(engine)
    assert [(r[0], r[2]) for r in rows] == [("fa.f1", 0), ("fa.f2", 1), ("fa-head-dim", 2)]
    assert rows[0][3] == "decode 时有用吗？"
    assert rows[1][3] == "backward 不存 attention matrix 怎么求梯度？"


def test_an_explicit_id_moves_with_its_question_to_another_card(
    database, write_content: WriteContent, engine: Engine
) -> None:
    root = write_content({"decks/attention.md": QUESTIONS})
    import_content(root, database)
    asks = "- 追问：为什么 head dim 大了收益变小？ {#fa-head-dim}"
    question = asks + "\n  答：SRAM 固定，每块放得下的行变少。"
    moved = QUESTIONS.replace("\n" + question, "") + "\n**追问展开。**\n\n" + question + "\n"
    write_content({"decks/attention.md": moved})
    import_content(root, database)
    assert [(r[0], r[1]) for r in followups(engine)] == [("fa.f1", "fa"), ("fa-head-dim", "online")]


def test_history_survives_prose_turning_into_questions_and_back(
    database, write_content: WriteContent, engine: Engine, make_learner: MakeLearner
) -> None:
    root = write_content({"decks/attention.md": PROSE})
    import_content(root, database)
    learner = add_history(database, "fa", make_learner())
    other = add_history(database, "online", make_learner())

    write_content({"decks/attention.md": QUESTIONS})
    # Both updated: the second card moved down the file. Neither is added nor retired.
    assert counts(import_content(root, database)) == {"updated": 2}
    assert ids(engine) == ["fa.f1", "fa-head-dim"]
    assert history(engine, "fa") == ([learner], [learner])
    assert history(engine, "online") == ([other], [other])

    write_content({"decks/attention.md": PROSE})
    assert counts(import_content(root, database)) == {"updated": 2}
    assert ids(engine) == []
    assert history(engine, "fa") == ([learner], [learner])


def test_a_failing_import_leaves_the_questions_as_they_were(
    database, write_content: WriteContent, engine: Engine
) -> None:
    root = write_content({"decks/attention.md": QUESTIONS})
    import_content(root, database)
    before = followups(engine)
    broken = QUESTIONS.replace("  答：SRAM 固定，每块放得下的行变少。", "")
    write_content({"decks/attention.md": broken})
    with pytest.raises(ContentErrors) as caught:
        import_content(root, database, strict=True)
    line = broken.splitlines().index("- 追问：为什么 head dim 大了收益变小？ {#fa-head-dim}") + 1
    assert [str(error) for error in caught.value.errors] == [
        f"decks/attention.md:{line}: follow-up question '为什么 head dim 大了收益变小？' has no "
        "answer (start a continuation line of the item with '答：' or 'A:')"
    ]
    assert followups(engine) == before


def test_anki_note_holds_each_question_with_its_answer(
    database, write_content: WriteContent, engine: Engine, tmp_path: Path
) -> None:
    import_content(write_content({"decks/attention.md": QUESTIONS}), database)
    field = export(engine, tmp_path).notes["fa"].fields["Followups"]
    assert field.startswith('<ol class="followup-questions"><li><div class="q">backward 不存')
    assert r"按块重算 \(P=\exp(QK^\top-L)\)" in field
    assert '<div class="q">为什么 head dim 大了收益变小？</div>' in field
    assert field.index("每块放得下的行变少") < field.index("回答里要点出 IO-aware")
