"""Migrations on both databases: from empty, from the schema before accounts, adoption, CLI."""

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from click.testing import CliRunner
from sqlalchemy import MetaData, inspect, select
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, SQLModel

from app.cli import main
from app.config import Settings, get_settings
from app.infra import migrate
from app.infra.bank import open_database
from app.infra.db import Database, create_schema, make_engine
from app.infra.migrate import BASELINE, MIGRATIONS, current_revision, downgrade, prepare, upgrade
from app.infra.models import Learner, ReviewLog
from app.infra.searchdb import include_name
from app.study import record_review, undo_last
from tests.support.migrations import triggers

pytestmark = pytest.mark.storage

HEAD = ScriptDirectory(str(MIGRATIONS)).get_current_head()
T0 = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def at(**delta: float) -> datetime:
    return T0 + timedelta(**delta)


def fsrs_state(state: int, step: int | None, reps: int, due: datetime, lapses: int = 0) -> dict:
    return {
        "state": state,
        "step": step,
        "stability": 0.2120 * reps + 0.5,
        "difficulty": 6.4133 - 0.1 * reps,
        "due": due.isoformat(),
        "last_review": at(minutes=reps).isoformat(),
        "reps": reps,
        "lapses": lapses,
    }


def log(
    log_id: int,
    learner_id: int,
    card_id: str,
    rating: int,
    queue: str,
    before: dict | None,
    after: dict | None,
    reviewed_at: datetime,
    *,
    mode: str = "study",
    duration_ms: int | None = None,
    undone_at: datetime | None = None,
) -> dict[str, Any]:
    """A review-log row with every column of the 0001 schema."""
    return {
        "id": log_id,
        "learner_id": learner_id,
        "card_id": card_id,
        "rating": rating,
        "mode": mode,
        "queue": queue,
        "practice_id": 1 if mode == "practice" else None,
        "reviewed_at": reviewed_at,
        "duration_ms": duration_ms,
        "state_before": before,
        "state_after": after,
        "undone_at": undone_at,
    }


S1 = fsrs_state(1, 0, 1, at(minutes=2))
S2 = fsrs_state(1, 1, 2, at(minutes=12))
S3 = fsrs_state(2, None, 3, at(days=3))
R1 = fsrs_state(1, 0, 1, at(minutes=6))

# A bank and two learners' history, written at revision 0001 (before accounts existed), in
# foreign-key order. Integer ids are left to the database, which gives them out from 1.
HISTORY: dict[str, list[dict[str, Any]]] = {
    "deck": [
        {
            "id": 1,
            "slug": "kernels",
            "title": "算子与性能",
            "description": "GEMM、roofline 与显存",
            "intro_html": "<p>本组收录 GEMM 的面试题。</p>",
            "language": "zh",
            "tags": ["gpu", "kernels"],
            "path": "decks/a-kernels.md",
            "retired": False,
        }
    ],
    "learner": [
        {
            "id": 1,
            "name": "local",
            "timezone": "Asia/Shanghai",
            "desired_retention": 0.85,
            "new_per_day": 15,
            "max_reviews_per_day": 150,
            "rollover_hour": 3,
            "created_at": T0,
        },
        {
            "id": 2,
            "name": "ana",
            "timezone": "UTC",
            "desired_retention": 0.9,
            "new_per_day": 20,
            "max_reviews_per_day": 200,
            "rollover_hour": 4,
            "created_at": at(hours=1),
        },
    ],
    "card": [
        {
            "id": card_id,
            "deck_id": 1,
            "section": "GPU 基础",
            "position": position,
            "question": question,
            "question_html": question,
            "answer_html": f"<p>{question} 的回答，含 $C = AB$。</p>",
            "followups_html": "",
            "pitfalls_html": "<p>GEMM 快不等于端到端快。</p>",
            "answer_text": f"{question} 的回答",
            "search_text": f"{question} gemm roofline",
            "tags": ["gpu"],
            "source_path": "decks/a-kernels.md",
            "source_line": 10 + 8 * position,
            "content_hash": f"sha-{card_id}",
            "retired": position == 2,
            "updated_at": T0,
        }
        for position, (card_id, question) in enumerate(
            [
                ("gemm-core", "为什么 GEMM 是核心？"),
                ("roofline", "Roofline 模型怎么读？"),
                ("old-card", "一张已下线的卡片"),
            ]
        )
    ],
    "practicesession": [
        {
            "id": 1,
            "learner_id": 1,
            "card_ids": ["gemm-core", "roofline"],
            "position": 2,
            "seconds_per_card": 90,
            "label": "mock interview",
            "started_at": at(hours=2),
            "finished_at": at(hours=2, minutes=3),
        }
    ],
    "cardstate": [
        {
            "learner_id": 1,
            "card_id": "gemm-core",
            "state": 2,
            "step": None,
            "stability": S3["stability"],
            "difficulty": S3["difficulty"],
            "due": at(days=3),
            "last_review": at(minutes=3),
            "reps": 3,
            "lapses": 0,
            "version": 3,
        },
        {
            "learner_id": 2,
            "card_id": "roofline",
            "state": 1,
            "step": 0,
            "stability": R1["stability"],
            "difficulty": R1["difficulty"],
            "due": at(minutes=6),
            "last_review": at(minutes=1),
            "reps": 1,
            "lapses": 0,
            "version": 3,  # rated, undone, rated again
        },
    ],
    "reviewlog": [
        log(1, 1, "gemm-core", 1, "new", None, S1, at(minutes=1), duration_ms=5400),
        log(2, 1, "gemm-core", 3, "learning", S1, S2, at(minutes=2)),
        log(3, 1, "gemm-core", 3, "learning", S2, S3, at(minutes=3), duration_ms=800),
        log(
            4, 2, "roofline", 4, "new", None, S3, at(minutes=1), undone_at=at(minutes=1, seconds=5)
        ),
        log(5, 2, "roofline", 2, "new", None, R1, at(minutes=1, seconds=9)),
        log(6, 1, "roofline", 2, "new", None, None, at(hours=2, minutes=1), mode="practice"),
        log(7, 1, "old-card", 3, "new", None, None, at(hours=2, minutes=2), mode="practice"),
    ],
}


@pytest.fixture
def blank(database_url: str) -> Iterator[Engine]:
    """An engine on an empty database: no tables, no alembic_version."""
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


def reflect(connection: Connection) -> MetaData:
    """The tables as the database has them (not as the models say they should be)."""
    metadata = MetaData()
    metadata.reflect(connection)
    return metadata


def write_history(engine: Engine) -> None:
    """Insert HISTORY with plain SQL against whatever schema the database is at."""
    with engine.begin() as connection:
        tables = reflect(connection).tables
        for name, rows in HISTORY.items():
            for row in rows:
                values = {k: v for k, v in row.items() if k != "id" or isinstance(v, str)}
                key = connection.execute(tables[name].insert().values(values)).inserted_primary_key
                if "id" in row:
                    assert key[0] == row["id"]


def _plain(value: Any) -> Any:
    # Rows read through reflected tables, not the models: SQLite's moments come back naive.
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


# Columns of HISTORY's schema that a later migration drops: nothing read them (0022).
DROPPED = {("card", "search_text")}


def assert_history_kept(engine: Engine) -> None:
    """Every row of HISTORY is there unchanged; columns added since hold their defaults."""
    with engine.connect() as connection:
        tables = reflect(connection).tables
        for name, rows in HISTORY.items():
            table = tables[name]
            stored = connection.execute(select(table).order_by(*table.primary_key)).mappings()
            stored_rows = list(stored)
            assert len(stored_rows) == len(rows), name
            in_key_order = sorted(rows, key=lambda r: [r[c.name] for c in table.primary_key])
            for row, got in zip(in_key_order, stored_rows, strict=True):
                kept = {k: v for k, v in row.items() if (name, k) not in DROPPED}
                assert {k: _plain(got[k]) for k in kept} == {k: _plain(v) for k, v in kept.items()}
                assert not any((name, k) in DROPPED for k in got)
            for column in SQLModel.metadata.tables[name].columns:
                if any(column.name in row for row in rows):
                    continue  # a column of the old schema, compared above
                values = [r[column.name] for r in stored_rows]
                if (name, column.name) == ("deck", "card_count"):
                    # Derived by migration 0005: the deck's active cards.
                    active = [c for c in HISTORY["card"] if not c["retired"]]
                    assert values == [len(active)]
                    continue
                if (name, column.name) == ("card", "ordinal"):
                    # Derived by migration 0005: each card's place in content order.
                    by_place = sorted(stored_rows, key=lambda r: (r["deck_id"], r["position"]))
                    assert [r["ordinal"] for r in by_place] == list(range(len(rows)))
                    continue
                default = column.default.arg if column.default is not None else None
                if callable(default):  # e.g. a time: any value, as long as there is one
                    assert None not in values, f"{name}.{column.name}"
                else:
                    assert values == [default] * len(rows), f"{name}.{column.name}"
    with Session(engine) as session:
        learners = session.scalars(select(Learner).order_by(Learner.id)).all()  # type: ignore[arg-type]
        assert [(u.name, u.is_admin, u.disabled, u.password_hash) for u in learners] == [
            ("local", False, False, None),
            ("ana", False, False, None),
        ]


def assert_study_goes_on(engine: Engine) -> None:
    """The migrated history is usable: rate a card where its schedule left off, then undo."""
    database = Database(engine)
    with database.session() as session:
        learner = session.get_one(Learner, 1)
        result = record_review(
            session,
            learner=learner,
            card_id="gemm-core",
            rating=3,
            now=at(days=3, minutes=5),
            expected_version=3,
            database=database,
        )
        assert (result.version, result.state.reps, result.log_id) == (4, 4, 8)
        undone = undo_last(
            session,
            learner=session.get_one(Learner, 1),
            now=at(days=3, minutes=6),
            database=database,
        )
        assert undone.log_id == 8
        assert session.get_one(ReviewLog, 3).state_after == S3


def differences(engine: Engine) -> list[Any]:
    """What autogenerate would change to make the database match the models (types included)."""
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection,
            opts={
                "compare_type": True,
                "compare_server_default": True,
                "include_name": include_name,  # the search indexes, made beside the models
            },
        )
        return compare_metadata(context, SQLModel.metadata)


def schema(engine: Engine) -> dict[str, Any]:
    """Everything the database says about its tables, in a comparable form."""
    found = inspect(engine)
    tables: dict[str, Any] = {}
    for name in sorted(found.get_table_names()):
        tables[name] = {
            # Sorted: a migration appends the columns it adds, the models may declare them earlier.
            "columns": sorted(
                (c["name"], str(c["type"]), c["nullable"], c.get("default"))
                for c in found.get_columns(name)
            ),
            "primary_key": found.get_pk_constraint(name)["constrained_columns"],
            "foreign_keys": sorted(
                (tuple(fk["constrained_columns"]), fk["referred_table"])
                for fk in found.get_foreign_keys(name)
            ),
            "indexes": sorted(
                (i["name"], tuple(i["column_names"]), bool(i["unique"]))
                for i in found.get_indexes(name)
            ),
            "unique": sorted(tuple(u["column_names"]) for u in found.get_unique_constraints(name)),
        }
    return {"tables": tables, "triggers": triggers(engine)}


def test_the_revision_a_start_takes_for_current_is_the_newest_script() -> None:
    """A new migration replaces migrate.HEAD, or a bank at the old head would not be upgraded."""
    assert migrate.HEAD == HEAD


def test_every_migration_from_empty_gives_the_schema_of_the_models(
    blank: Engine, make_database_url: Callable[[str], str]
) -> None:
    upgrade(blank)
    assert current_revision(blank) == HEAD
    assert differences(blank) == []

    created = make_engine(make_database_url("created"))
    try:
        create_schema(created)  # a new database: create_all, stamped at head
        assert current_revision(created) == HEAD
        assert differences(created) == []
        assert schema(blank) == schema(created)
    finally:
        created.dispose()


def test_upgrade_from_the_schema_before_accounts_keeps_all_history(blank: Engine) -> None:
    upgrade(blank, BASELINE)
    assert current_revision(blank) == BASELINE
    assert "learner" in inspect(blank).get_table_names()
    assert "authsession" not in inspect(blank).get_table_names()
    write_history(blank)

    upgrade(blank)

    assert current_revision(blank) == HEAD
    assert differences(blank) == []
    assert_history_kept(blank)
    assert_study_goes_on(blank)


def made_before_migrations(engine: Engine) -> None:
    """A database as create_all made it before Alembic: the baseline tables, no version table."""
    upgrade(engine, BASELINE)
    write_history(engine)
    with engine.begin() as connection:
        connection.exec_driver_sql("DROP TABLE alembic_version")
    assert current_revision(engine) is None


def test_prepare_adopts_a_database_made_before_migrations(blank: Engine) -> None:
    made_before_migrations(blank)

    prepare(blank)

    assert current_revision(blank) == HEAD
    assert differences(blank) == []
    assert_history_kept(blank)
    assert_study_goes_on(blank)


def test_starting_up_adopts_a_database_made_before_migrations(
    blank: Engine, database_url: str
) -> None:
    made_before_migrations(blank)

    database = open_database(Settings(_env_file=None, database_url=database_url))  # type: ignore[call-arg]
    assert current_revision(database.engine) != HEAD  # opening migrates nothing
    database.upgrade()

    assert current_revision(database.engine) == HEAD
    assert_history_kept(database.engine)


@pytest.mark.parametrize("start", ["empty", "baseline", "adopted", "head"])
def test_db_upgrade_command_prints_the_head_revision(
    blank: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch, start: str
) -> None:
    if start == "baseline":
        upgrade(blank, BASELINE)
        write_history(blank)
    elif start == "adopted":
        made_before_migrations(blank)
    elif start == "head":
        create_schema(blank)
    monkeypatch.setenv("QBANK_DATABASE_URL", database_url)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(main, ["db", "upgrade"])
    finally:
        get_settings.cache_clear()

    assert (result.exit_code, result.output) == (0, f"database schema at revision {HEAD}\n")
    assert current_revision(blank) == HEAD
    assert differences(blank) == []
    if start in ("baseline", "adopted"):
        assert_history_kept(blank)


def test_downgrade_to_the_baseline_and_upgrade_again(
    blank: Engine, make_database_url: Callable[[str], str]
) -> None:
    upgrade(blank, BASELINE)
    write_history(blank)
    upgrade(blank)

    downgrade(blank, BASELINE)

    assert current_revision(blank) == BASELINE
    baseline = make_engine(make_database_url("baseline"))
    try:
        upgrade(baseline, BASELINE)
        assert schema(blank) == schema(baseline)
    finally:
        baseline.dispose()
    with blank.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM reviewlog").scalar() == 7

    upgrade(blank)

    assert current_revision(blank) == HEAD
    assert differences(blank) == []
    assert_history_kept(blank)
    assert_study_goes_on(blank)
