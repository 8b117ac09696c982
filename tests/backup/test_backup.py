"""Backup and restore: every due date reproduced, idempotent, nothing lost, clear refusals."""

import csv
import io
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlmodel import col, select

from app.backup import (
    PLACEHOLDER_DECK,
    BackupError,
    log_csv,
)
from app.cli import main
from app.config import Settings
from app.content.bank.sync import import_content
from app.infra.db import Database
from app.infra.models import Card, CardState, Deck, Learner, PracticeSession, ReviewLog
from app.study import Filters, counts, get_learner, record_review
from tests.support.backup import (
    CONTENT,
    DECK,
    START,
    _with,
    backup,
    dump,
    fresh_engine,
    make_client,
    restore,
    simulate_week,
)
from tests.support.content_files import WriteContent
from tests.support.templates import Templates, content_key

pytestmark = pytest.mark.storage


@pytest.fixture
def other(make_database_url: Callable[[str], str], templates: Templates) -> Iterator[Database]:
    """A second, empty instance to restore into."""
    url = make_database_url("other")
    templates.schema(url)
    database = Database.open(url)
    database.upgrade()
    yield database
    database.dispose()


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A valid backup of a studied week, built once for the tests that only need the document."""
    root = tmp_path_factory.mktemp("document")
    for rel, text in CONTENT.items():
        (root / "content" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "content" / rel).write_text(text.lstrip("\n"), encoding="utf-8")
    database = fresh_engine(root / "studied.db")
    import_content(root / "content", database)
    simulate_week(database)
    data = backup(database)
    database.dispose()
    return data


def import_and_study(root: Path) -> Callable[[Database], None]:
    def build(database: Database) -> None:
        import_content(root, database)
        simulate_week(database)

    return build


@pytest.fixture
def studied(
    write_content: WriteContent, database_url: str, templates: Templates
) -> Iterator[Database]:
    """The test's database after a studied week: a copy of one studied once per process.

    The week is simulated at fixed times, so every copy is what studying it again would give.
    """
    root = write_content(CONTENT)
    build = import_and_study(root)
    copied = templates.copy(f"studied-{content_key(root)}", database_url, build)
    database = Database.open(database_url)
    database.upgrade()
    if not copied:
        build(database)
    yield database
    database.dispose()


def schedule(database: Database) -> list[tuple[Any, ...]]:
    with database.session() as session:
        rows = session.exec(select(CardState).order_by(col(CardState.card_id)))
        return [tuple(row.model_dump(exclude={"learner_id"}).values()) for row in rows]


def log(database: Database) -> list[dict[str, Any]]:
    """The review log in order, practice runs by their content rather than their id."""
    with database.session() as session:
        entries = []
        for row in session.exec(select(ReviewLog).order_by(col(ReviewLog.id))):
            entry = row.model_dump(exclude={"id", "learner_id", "practice_id"})
            if row.practice_id is not None:
                run = session.get(PracticeSession, row.practice_id)
                assert run is not None
                entry["practice"] = (run.card_ids, run.started_at, run.finished_at, run.position)
            entries.append(entry)
        return entries


# --- round trip ---------------------------------------------------------------------------


def test_history_is_a_real_week(studied: Database) -> None:
    entries = log(studied)
    assert len({e["reviewed_at"].date() for e in entries}) >= 4
    assert sum(e["undone_at"] is not None for e in entries) == 1
    assert sum(e["mode"] == "practice" for e in entries) == 2
    assert len(schedule(studied)) == 4


def test_restore_into_a_fresh_instance_reproduces_every_due_date(
    studied: Database, other: Database, content_dir: Path
) -> None:
    import_content(content_dir, other)
    data = backup(studied)

    report = restore(other, data)

    assert report.reviews_added == len(data["reviews"]) == len(log(studied))
    assert (report.states_added, report.placeholders, report.practice_added) == (4, 0, 1)
    assert report.settings_changed
    assert schedule(other) == schedule(studied)
    assert log(other) == log(studied)
    with studied.session() as a, other.session() as b:
        one, two = get_learner(a, "local"), get_learner(b, "local")
        assert (two.timezone, two.desired_retention) == ("Asia/Shanghai", 0.85)
        for days in (0, 3, 10, 40):
            now = START + timedelta(days=7 + days)
            assert counts(a, learner=one, now=now, filters=Filters()) == counts(
                b, learner=two, now=now, filters=Filters()
            )
    # Backing up the restored instance gives back the same document.
    again = backup(other)
    assert {**again, "exported_at": None} == {**data, "exported_at": None}


def test_restore_twice_changes_nothing(
    studied: Database, other: Database, content_dir: Path
) -> None:
    import_content(content_dir, other)
    data = backup(studied)
    restore(other, data)
    before = dump(other)

    report = restore(other, data)

    assert not report.changed
    assert (report.reviews_present, report.states_kept) == (len(data["reviews"]), 4)
    assert dump(other) == before


def test_restore_into_the_same_database_adds_nothing(studied: Database) -> None:
    before = dump(studied)
    report = restore(studied, backup(studied))
    assert not report.changed
    assert dump(studied) == before


def test_duplicate_entries_inside_one_backup_are_added_once(
    studied: Database, other: Database
) -> None:
    data = backup(studied)
    data["reviews"] += data["reviews"][:3]
    report = restore(other, data)
    assert report.reviews_added == len(data["reviews"]) - 3
    assert report.reviews_present == 3


def test_offsets_other_than_utc_restore_to_the_same_moments(
    studied: Database, other: Database, content_dir: Path
) -> None:
    import_content(content_dir, other)
    data = backup(studied)
    beijing = datetime.fromisoformat("2025-01-01T00:00+08:00").tzinfo
    for review in data["reviews"]:
        review["reviewed_at"] = datetime.fromisoformat(review["reviewed_at"]).astimezone(beijing)
        review["reviewed_at"] = review["reviewed_at"].isoformat()
    assert data["reviews"][0]["reviewed_at"].endswith("+08:00")
    restore(other, data)
    assert log(other) == log(studied)
    assert not restore(other, backup(studied)).changed


# --- merging with what is already there ---------------------------------------------------


def test_the_schedule_reviewed_last_wins(
    studied: Database, other: Database, content_dir: Path
) -> None:
    import_content(content_dir, other)
    data = backup(studied)
    later = START + timedelta(days=30)
    with other.session() as session:
        learner = get_learner(session, "local")
        # On this instance 'hbm' was studied after the backup was taken.
        record_review(session, learner=learner, card_id="hbm", rating=3, now=later, database=other)
        mine = session.get(CardState, (learner.id, "hbm"))
        assert mine is not None
        mine_due = mine.due

    report = restore(other, data)

    assert (report.states_added, report.states_updated, report.states_kept) == (3, 0, 1)
    with other.session() as session:
        learner = get_learner(session, "local")
        hbm = session.get(CardState, (learner.id, "hbm"))
        assert hbm is not None and hbm.due == mine_due
    assert len(log(other)) == len(data["reviews"]) + 1

    # The other way round: the backup is newer, so it replaces the older schedule.
    data["states"] = [s for s in data["states"] if s["card_id"] == "gemm-core"]
    newer = {**data["states"][0], "last_review": later.isoformat(), "due": later.isoformat()}
    data["states"] = [newer]
    with other.session() as session:
        learner = get_learner(session, "local")
        version = session.get(CardState, (learner.id, "gemm-core")).version  # type: ignore[union-attr]
    report = restore(other, data)
    assert (report.states_updated, report.states_kept) == (1, 0)
    with other.session() as session:
        learner = get_learner(session, "local")
        gemm = session.get(CardState, (learner.id, "gemm-core"))
        assert gemm is not None
        assert gemm.due.replace(tzinfo=UTC) == later
        assert gemm.version > version  # an open study form for it now gets a conflict


# --- cards that left the bank -------------------------------------------------------------


def test_cards_missing_from_the_bank_are_kept_retired(
    studied: Database, other: Database, write_content: WriteContent, content_dir: Path
) -> None:
    data = backup(studied)
    # The fresh instance's content no longer has 'roofline'.
    write_content(
        {"decks/gpu.md": DECK.split("### Q：Roofline")[0] + "## 内存" + DECK.split("## 内存")[1]}
    )
    import_content(content_dir, other)

    report = restore(other, data)

    assert report.placeholders == 1
    with other.session() as session:
        card = session.get(Card, "roofline")
        assert card is not None and card.retired
        assert card.question == "Roofline 怎么读？"
        deck = session.get(Deck, card.deck_id)
        assert deck is not None and (deck.slug, deck.retired) == (PLACEHOLDER_DECK, True)
    assert schedule(other) == schedule(studied)
    assert log(other) == log(studied)
    assert not restore(other, data).changed

    # When the content brings the card back, it resumes with its history.
    write_content(CONTENT)
    assert import_content(content_dir, other).resumed == 1
    with other.session() as session:
        card = session.get(Card, "roofline")
        assert card is not None and not card.retired
    assert schedule(other) == schedule(studied)


def test_restore_into_an_empty_bank_keeps_everything(studied: Database, other: Database) -> None:
    report = restore(other, backup(studied))
    assert report.placeholders == 4
    assert schedule(other) == schedule(studied)
    assert log(other) == log(studied)


# --- refusals -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: b"{", "not a qbank backup: invalid JSON (Expecting property name"),
        (lambda d: b"\xff\xfe\x00", "not a qbank backup: the file is not UTF-8 text"),
        (lambda d: "[1, 2]", "not a qbank backup: expected a JSON object"),
        (lambda d: _with(d, "format", "anki"), "not a qbank backup: 'format' should be"),
        (lambda d: _with(d, "version", 2), "format version 2, newer than this qbank reads (1)"),
        (lambda d: _with(d, "version", 0), "invalid backup: version: Input should be 1"),
        (lambda d: _with(d, "reviews.0.rating", 7), "invalid backup: reviews[0].rating: Input"),
        (
            lambda d: _with(d, "reviews.1.reviewed_at", "2025-03-03T01:00:00"),
            "invalid backup: reviews[1].reviewed_at: Input should have timezone info",
        ),
        (lambda d: _with(d, "states.0.due", "soon"), "invalid backup: states[0].due:"),
        (lambda d: _with(d, "states.0.state", 0), "invalid backup: states[0].state:"),
        (lambda d: _with(d, "reviews.0.practice_id", 999), "reviews[0].practice_id: no practice"),
        (lambda d: _with(d, "states.1", d["states"][0]), "states[1]: card 'bank-conflict' twice"),
        (
            lambda d: _with(d, "learner.settings.timezone", "Mars/Base"),
            "learner.settings.timezone: Value error, unknown time zone 'Mars/Base'",
        ),
        (lambda d: _with(d, "learner", None), "invalid backup: learner: Input should be"),
    ],
)
def test_bad_documents_are_refused_with_one_clear_line(
    database: Database,
    document: dict[str, Any],
    change: Callable[[dict[str, Any]], Any],
    message: str,
) -> None:
    data = change(json.loads(json.dumps(document)))
    restore(database, {**document, "states": [], "reviews": [], "practice": []})
    before = dump(database)
    with pytest.raises(BackupError) as raised:
        restore(database, data)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)
    # Nothing was written: no placeholder cards, settings or history from the refused document.
    assert dump(database) == before


def test_many_problems_are_summarised(database: Database, document: dict[str, Any]) -> None:
    data = json.loads(json.dumps(document))
    for review in data["reviews"]:
        review["rating"] = 9
    with pytest.raises(BackupError, match=rf"\(and {len(data['reviews']) - 1} more problems\)"):
        restore(database, data)


# --- the CSV log --------------------------------------------------------------------------


def test_log_csv_has_every_rating(studied: Database) -> None:
    with studied.session() as session:
        text = log_csv(session=session, learner=get_learner(session, "local"))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == len(log(studied))
    first = rows[0]
    assert (first["card_id"], first["deck"], first["section"]) == ("gemm-core", "gpu", "计算")
    assert first["question"] == "为什么 GEMM 是核心？"
    assert first["reviewed_at"] == START.isoformat()
    assert (first["rating"], first["mode"], first["queue"]) == ("3", "study", "new")
    assert sum(bool(row["undone_at"]) for row in rows) == 1
    assert [row["rating"] for row in rows if row["mode"] == "practice"] == ["1", "3"]


# --- CLI ----------------------------------------------------------------------------------


@pytest.fixture
def cli_bank(
    settings: Settings, write_content: WriteContent, templates: Templates
) -> Iterator[Database]:
    root = write_content(CONTENT)
    build = import_and_study(root)
    copied = templates.copy(f"studied-{content_key(root)}", settings.database_url, build)
    database = Database.open(settings.database_url)
    database.upgrade()
    if not copied:
        build(database)
    yield database
    database.dispose()


def test_cli_backup_log_and_restore(cli_bank: Database, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "backup.json"
    result = runner.invoke(main, ["export", "backup", str(out)])
    assert result.exit_code == 0, result.output
    reviews = len(log(cli_bank))
    assert result.stdout == f"learner 'local': 4 schedules, {reviews} reviews: {out}\n"
    assert json.loads(out.read_text(encoding="utf-8"))["learner"]["name"] == "local"

    csv_out = tmp_path / "log.csv"
    result = runner.invoke(main, ["export", "log", str(csv_out)])
    assert result.exit_code == 0, result.output
    assert csv_out.read_bytes().startswith(b"\xef\xbb\xbfreviewed_at,card_id,")

    result = runner.invoke(main, ["restore", "--learner", "ana", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"learner 'ana': {reviews} reviews added (0 already present)")
    again = runner.invoke(main, ["restore", "--learner", "ana", str(out)])
    assert f"0 reviews added ({reviews} already present)" in again.stdout
    assert again.stdout.rstrip().endswith("settings unchanged")
    with cli_bank.session() as session:
        ana = session.exec(select(Learner).where(Learner.name == "ana")).one()
        assert ana.timezone == "Asia/Shanghai"


def test_cli_errors_are_one_line(cli_bank: Database, tmp_path: Path) -> None:
    runner = CliRunner()
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "qbank-backup", "version": 1}', encoding="utf-8")
    result = runner.invoke(main, ["restore", str(bad)])
    assert result.exit_code == 1
    assert result.stderr == "error: invalid backup: learner: Field required\n"

    result = runner.invoke(main, ["restore", str(tmp_path / "missing.json")])
    assert result.exit_code == 1
    assert result.stderr == f"error: {tmp_path / 'missing.json'}: No such file or directory\n"

    result = runner.invoke(main, ["export", "backup", "--learner", "nobody", str(tmp_path / "x")])
    assert (result.exit_code, result.stderr) == (1, "error: no learner 'nobody'\n")


# --- web ----------------------------------------------------------------------------------


@pytest.fixture
def clients(
    make_database_url: Callable[[str], str], write_content: WriteContent
) -> Iterator[tuple[TestClient, TestClient]]:
    """The app over a studied bank, and the app over a fresh instance of the same content."""
    root = write_content(CONTENT)
    one_url, two_url = make_database_url("a"), make_database_url("b")
    with make_client(one_url, root) as one, make_client(two_url, root) as two:
        simulate_week(one.app.state.database)  # type: ignore[attr-defined]
        yield one, two


def test_settings_page_offers_backup_and_restore(clients: tuple[TestClient, TestClient]) -> None:
    page = clients[0].get("/settings").text
    for fragment in (
        'href="/backup.json"',
        'href="/backup/log.csv"',
        'href="/export/anki"',
        'action="/backup/restore" enctype="multipart/form-data"',
        'name="file" type="file"',
    ):
        assert fragment in page


def test_web_download_and_upload(clients: tuple[TestClient, TestClient]) -> None:
    source, target = clients
    response = source.get("/backup.json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers["content-disposition"].startswith(
        'attachment; filename="qbank-backup-local-'
    )
    data = response.json()
    reviews = len(data["reviews"])

    log_response = source.get("/backup/log.csv")
    assert log_response.status_code == 200
    assert log_response.headers["content-type"] == "text/csv; charset=utf-8"
    assert len(log_response.content.decode("utf-8-sig").splitlines()) == reviews + 1

    upload = {"file": ("backup.json", response.content, "application/json")}
    restored = target.post("/backup/restore", files=upload)
    assert restored.status_code == 200
    assert f"Restored: {reviews} reviews added (0 already here)" in restored.text
    assert "Study settings were restored." in restored.text
    assert 'name="timezone" id="timezone" list="zones" value="Asia/Shanghai"' in restored.text
    source_database = source.app.state.database  # type: ignore[attr-defined]
    target_database = target.app.state.database  # type: ignore[attr-defined]
    assert schedule(target_database) == schedule(source_database)

    again = target.post("/backup/restore", files=upload)
    assert again.status_code == 200
    assert "Everything in this backup was already here; nothing changed." in again.text


def test_web_upload_of_a_bad_file_says_why(clients: tuple[TestClient, TestClient]) -> None:
    response = clients[1].post(
        "/backup/restore", files={"file": ("notes.txt", b"hello", "text/plain")}
    )
    assert response.status_code == 400
    assert 'id="restore-error"' in response.text
    assert "not a qbank backup: invalid JSON" in response.text
