"""The PostgreSQL test schemas: each test's rows are the template's, whatever the last test did."""

from collections.abc import Iterator

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.infra.db import Database, make_engine
from app.infra.models import Deck, Learner
from tests.support.pgschemas import POSTGRES_URL, PostgresSchemas, compact_catalogs

pytestmark = pytest.mark.parametrize(
    "backend", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)


@pytest.fixture
def schemas(backend: str) -> Iterator[PostgresSchemas]:
    schemas = PostgresSchemas(POSTGRES_URL, "selftest")
    yield schemas
    schemas.close()


def one_learner(database: Database) -> None:
    with database.session() as session, database.writing(session):
        session.add(Learner(name="template"))


def learner_and_decks(database: Database) -> None:
    with database.session() as session, database.writing(session):
        session.add(Learner(name="template"))
        session.add_all([Deck(slug="a", title="A"), Deck(slug="b", title="B")])


def lease(schemas: PostgresSchemas) -> tuple[str, Engine]:
    url = schemas.new()
    assert schemas.fill("one", url, one_learner)
    return url, make_engine(url)


def names_and_ids(engine: Engine) -> list[tuple[int, str]]:
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(text("SELECT id, name FROM learner"))]


def test_a_filled_schema_holds_the_templates_rows_and_sequences_not_the_last_tests(
    schemas: PostgresSchemas,
) -> None:
    url, engine = lease(schemas)
    assert names_and_ids(engine) == [(1, "template")]
    with Session(engine) as session:
        session.add(Learner(name="left behind"))
        session.commit()
    engine.dispose()
    schemas.release(url)

    url, engine = lease(schemas)  # the same spare, renamed and filled again
    with Session(engine) as session:
        session.add(Learner(name="next"))
        session.commit()
    assert names_and_ids(engine) == [(1, "template"), (2, "next")]
    engine.dispose()
    schemas.release(url)
    assert sum(len(spares) for spares in schemas.spares.values()) == 1


def test_a_schema_whose_shape_a_test_changed_is_dropped_not_reused(
    schemas: PostgresSchemas,
) -> None:
    url, engine = lease(schemas)
    schema = schemas.made[url]
    with engine.begin() as connection:
        connection.exec_driver_sql("ALTER TABLE learner ADD COLUMN extra TEXT")
    engine.dispose()
    schemas.release(url)
    assert not any(schemas.spares.values())
    with schemas.admin.connect() as connection:
        found = connection.execute(
            text("SELECT count(*) FROM pg_namespace WHERE nspname = :name"), {"name": schema}
        ).scalar_one()
    assert found == 0


def test_only_an_empty_schema_of_its_own_is_filled(schemas: PostgresSchemas) -> None:
    url, engine = lease(schemas)
    assert not schemas.fill("one", url, one_learner)  # it has tables now
    assert not schemas.fill("one", POSTGRES_URL, one_learner)  # not made here
    engine.dispose()
    schemas.release(url)


def rows(engine: Engine, table: str) -> list[tuple[object, ...]]:
    """Every row of `table` with its physical place and the transaction that wrote it."""
    with engine.connect() as connection:
        query = f"SELECT ctid::text, xmin::text, * FROM {table} ORDER BY id"
        return [tuple(row) for row in connection.exec_driver_sql(query)]


@pytest.mark.parametrize(
    "change",
    [
        "DELETE FROM deck WHERE slug = 'b'",
        "UPDATE deck SET title = 'changed' WHERE slug = 'a'",
        "INSERT INTO deck SELECT * FROM jsonb_populate_record(NULL::deck,"
        ' (SELECT to_jsonb(d) || \'{"id": 3, "slug": "c"}\' FROM deck d WHERE slug = \'a\'))',
    ],
)
def test_the_tables_a_test_wrote_to_are_filled_again_and_only_they(
    schemas: PostgresSchemas, change: str
) -> None:
    url = schemas.new()
    assert schemas.fill("two tables", url, learner_and_decks)
    engine = make_engine(url)
    decks = [row[2:] for row in rows(engine, "deck")]
    learners = rows(engine, "learner")
    with engine.begin() as connection:
        connection.exec_driver_sql(change)
    engine.dispose()
    schemas.release(url)

    url = schemas.new()  # the same spare, holding the same template's rows
    assert schemas.fill("two tables", url, learner_and_decks)
    engine = make_engine(url)
    assert [row[2:] for row in rows(engine, "deck")] == decks
    assert rows(engine, "learner") == learners  # the very rows: not copied again
    engine.dispose()
    schemas.release(url)


def test_compacting_the_catalogs_gives_back_what_dropped_schemas_took(
    schemas: PostgresSchemas,
) -> None:
    size = "SELECT pg_relation_size('pg_catalog.pg_attribute')"
    with schemas.admin.begin() as connection:
        connection.exec_driver_sql("CREATE SCHEMA churn")
        for n in range(1000):
            connection.exec_driver_sql(f"CREATE TABLE churn.t{n} (a int, b text, c int)")
    with schemas.admin.begin() as connection:
        connection.exec_driver_sql("DROP SCHEMA churn CASCADE")
        bloated = connection.exec_driver_sql(size).scalar_one()
    compact_catalogs(POSTGRES_URL)
    with schemas.admin.begin() as connection:
        compacted = connection.exec_driver_sql(size).scalar_one()
    # 1,000 tables left ~9,000 dead column rows (~1 MB); other workers add far less meanwhile.
    assert bloated - compacted > 500_000, (bloated, compacted)
