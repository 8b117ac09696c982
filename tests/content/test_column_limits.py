"""Every string a note puts into a column is held to the column's limit before anything is
written: too long, it is shortened or the note left out with a `path:line` warning, on both
databases, and the rest of the folder imports."""

import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import String
from sqlmodel import select

from app.cli import main
from app.content.bank.limits import CARD_ID, DECK_SLUG, DECK_TITLE, FOLLOWUP_ID, PATH, TOPIC_SLUG
from app.content.bank.sync import check_content
from app.infra.models import Card, Deck, Followup, SourceFile, Topic, table_of

pytestmark = pytest.mark.storage

CARD = "## What is a lock?\n\nA way to wait.\n"
FOLLOWUPS = "**追问展开。**\n\n"


def noise(size: int, seed: int = 0) -> str:
    # Random letters: PostgreSQL compresses a run of one letter below its index limit.
    pick = random.Random(seed)
    return "".join(pick.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(size))


def _import(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["import", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output.splitlines()


def _notes(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "good.md").write_text("# Good\n\n" + CARD, encoding="utf-8")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _good_imported(settings_database) -> None:
    with settings_database.session() as session:
        assert "Good" in session.exec(select(Deck.title)).all()


def test_a_path_past_the_limit_leaves_its_note_out(settings, settings_database) -> None:
    folder = Path(*(f"{i}{noise(200, i)}" for i in range(PATH.size // 200 + 1)))
    root = _notes(settings.content_dir, {f"{folder}/deep.md": "# Deep\n\n" + CARD})
    code, lines = _import()
    assert code == 0
    (warning,) = [line for line in lines if "deep.md" in line]
    assert warning.endswith(f", over the limit of {PATH.size}; the note is left out [warning]")
    assert warning.startswith(f"{folder}/deep.md:1: path is ")
    _good_imported(settings_database)
    with settings_database.session() as session:
        assert session.exec(select(SourceFile.path)).all() == ["good.md"]
    # `check` says the same; `--strict` refuses with it, as a message.
    assert [p.said.code for p in check_content(root).warnings] == ["path_too_long"]
    code, lines = _import("--strict")
    assert code == 1 and any("the note is left out" in line for line in lines)


def test_an_explicit_card_id_past_the_limit_is_shortened_the_same_way_each_time(
    settings, settings_database
) -> None:
    long_id = noise(CARD_ID.size + 500)
    deck = f"# Ids\n\n## What is x? {{#{long_id}}}\n\nX.\n\n{FOLLOWUPS}- 追问：Why?\n  答：B.\n"
    root = _notes(settings.content_dir, {"ids.md": deck})
    code, lines = _import()
    assert code == 0
    assert any(
        line.startswith(f"ids.md:3: id or slug '{long_id[:40]}…' is {len(long_id)} bytes")
        and line.endswith("; shortened [warning]")
        for line in lines
    ), lines
    with settings_database.session() as session:
        card = session.exec(select(Card).where(Card.source_path == "ids.md")).one()
        followups = session.exec(select(Followup.id).where(Followup.card_id == card.id)).all()
    assert card.id.startswith(long_id[:100]) and len(card.id) <= CARD_ID.size
    assert followups and all(
        f.startswith(card.id) and len(f) <= FOLLOWUP_ID.size for f in followups
    )
    # The same id on the next import: the card and its history are kept.
    (root / "ids.md").write_text(deck.replace("X.", "X, edited."), encoding="utf-8")
    assert _import()[0] == 0
    with settings_database.session() as session:
        assert session.exec(select(Card.id).where(Card.source_path == "ids.md")).all() == [card.id]


def test_an_explicit_follow_up_id_past_the_limit_is_shortened(settings, settings_database):
    long_id = noise(FOLLOWUP_ID.size + 10, 3)
    deck = f"# F\n\n## What is f?\n\nF.\n\n{FOLLOWUPS}- 追问：Why? {{#{long_id}}}\n  答：Because.\n"
    _notes(settings.content_dir, {"f.md": deck})
    code, lines = _import()
    assert code == 0 and any(line.startswith("f.md:9: id or slug") for line in lines), lines
    with settings_database.session() as session:
        (followup,) = session.exec(select(Followup.id)).all()
    assert followup.startswith(long_id[:100]) and len(followup) <= FOLLOWUP_ID.size


def test_slugs_past_the_limit_are_shortened(settings, settings_database) -> None:
    deck_slug, topic_slug = noise(DECK_SLUG.size * 3, 1), noise(TOPIC_SLUG.size * 3, 2)
    _notes(
        settings.content_dir,
        {
            "decks/slug.md": f"---\nslug: {deck_slug}\n---\n# S\n\n" + CARD,
            "topics/t.md": f"---\nslug: {topic_slug}\n---\n# A page\n\nText [[Good]].\n",
            "decks/good.md": "# Other\n\n## What is t?\n\nSee [[A page]].\n",
        },
    )
    code, lines = _import()
    assert code == 0
    assert sum("; shortened [warning]" in line for line in lines) == 2, lines
    with settings_database.session() as session:
        slugs = dict(session.exec(select(Deck.path, Deck.slug)).all())
        (topic,) = session.exec(select(Topic.slug)).all()
    assert slugs["decks/slug.md"].startswith(deck_slug[:100])
    assert topic.startswith(topic_slug[:100]) and len(topic) <= TOPIC_SLUG.size


def test_a_title_past_the_limit_is_shortened(settings, settings_database) -> None:
    title = noise(DECK_TITLE.size * 40, 4)
    _notes(settings.content_dir, {"title.md": f"# {title}\n\n" + CARD})
    code, lines = _import()
    assert code == 0
    assert any(line.startswith(f"title.md:1: title '{title[:40]}…' is") for line in lines)
    with settings_database.session() as session:
        titles = session.exec(select(Deck.title)).all()
    assert title[: DECK_TITLE.size - 1] + "…" in titles and "Good" in titles


def test_every_indexed_string_a_note_fills_declares_its_limit() -> None:
    """One place: a key column of the content tables carries its limit, which the import reads."""
    for model in (SourceFile, Deck, Card, Followup, Topic):
        table = table_of(model)
        indexed = {c.name for c in table.primary_key} | {
            c.name for index in table.indexes for c in index.columns
        }
        for column in table.columns:
            if isinstance(column.type, String) and column.name in indexed:
                assert column.info.get("max_bytes"), f"{table.name}.{column.name}"
