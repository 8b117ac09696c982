"""The search entries' trigram indexes: SQLite FTS5 (trigram tokenizer), PostgreSQL pg_trgm.

They only narrow the rows that app.search.query then compares with LIKE, which still decides every
hit, so they change how fast search is, never what it finds. A term of fewer than three
characters (a two-character Chinese word such as 显存) has no trigram and is matched by the
comparison alone, over every entry, as before.

Made with the table (create_all) and by migration 0019. An SQLite batch migration that
rebuilds `searchentry` drops its triggers: such a migration must make them again.

New entries enter SQLite's index by `index_added`, one statement for all the rows a write added,
not by a trigger: FTS5 writes its pending terms out at each statement a trigger runs, so a
trigger indexed a first import's 10,200 entries a row at a time, 3.3 s of CPU against 0.7 s in
one statement (`bench/import_cpu.py`). Deletes and updates, a few rows at an import, keep theirs.
"""

import logging

from sqlalchemy import Table, event
from sqlalchemy.engine import Connection

log = logging.getLogger("qbank")

FTS_TABLE = "searchentry_fts"
COLUMNS = ("title_folded", "body_folded", "extra_folded", "reading_folded")
TRIGRAM = 3  # characters in a trigram: shorter terms cannot use either index

_COLUMNS = ", ".join(COLUMNS)
_NEW = ", ".join(f"new.{c}" for c in COLUMNS)
_OLD = ", ".join(f"old.{c}" for c in COLUMNS)
# External content: the index reads the text from `searchentry`; `index_added` and the
# triggers keep it in step.
# case_sensitive 1: the text is folded already, and a phrase then matches exact substrings.
SQLITE = (
    f"DROP TABLE IF EXISTS {FTS_TABLE}",
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5({_COLUMNS}, content='searchentry',"
    " content_rowid='id', tokenize='trigram case_sensitive 1', detail='full')",
    f"CREATE TRIGGER {FTS_TABLE}_delete AFTER DELETE ON searchentry BEGIN"
    f" INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, {_COLUMNS})"
    f" VALUES ('delete', old.id, {_OLD}); END",
    f"CREATE TRIGGER {FTS_TABLE}_update AFTER UPDATE OF {_COLUMNS} ON searchentry BEGIN"
    f" INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, {_COLUMNS})"
    f" VALUES ('delete', old.id, {_OLD});"
    f" INSERT INTO {FTS_TABLE}(rowid, {_COLUMNS}) VALUES (new.id, {_NEW}); END",
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')",
)
# In a schema of its own choosing (public): an extension exists once per database, and one
# made in a schema that is later dropped would take every trigram index with it.
PG_EXTENSION = "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public"
PG_EXTENSION_SCHEMA = (
    "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace"
    " WHERE e.extname = 'pg_trgm'"
)


# One index over the four fields joined: one index scan per term instead of four, which the
# planner chooses where four (one per field) looked dearer than reading the table. Terms hold
# no spaces, so none matches across the joints. app.search.query compares terms with this
# expression.
ALL_TEXT = " || ' ' || ".join(f"searchentry.{c}" for c in COLUMNS)
PG_INDEX = "ix_searchentry_text_trgm"


def _pg_index(schema: str) -> str:
    return (
        f"CREATE INDEX IF NOT EXISTS {PG_INDEX}"
        f' ON searchentry USING gin (({ALL_TEXT}) "{schema}".gin_trgm_ops)'
    )


def create_indexes(connection: Connection) -> None:
    """Make the trigram index of `searchentry` for this database, filled from its rows."""
    if connection.dialect.name == "sqlite":
        for statement in SQLITE:
            connection.exec_driver_sql(statement)
        return
    try:
        # pg_trgm is a trusted extension: the database's owner may create it. Without it
        # search still works, by comparing every entry.
        with connection.begin_nested():
            connection.exec_driver_sql(PG_EXTENSION)
    except Exception as exc:
        log.warning("pg_trgm is not available, search compares every entry: %s", exc)
        return
    schema: str = connection.exec_driver_sql(PG_EXTENSION_SCHEMA).scalar_one()
    connection.exec_driver_sql(_pg_index(schema))


def last_entry(connection: Connection) -> int:
    """The highest entry id so far (0: none); the entries a write adds next come after it."""
    highest = connection.exec_driver_sql("SELECT coalesce(max(id), 0) FROM searchentry")
    return int(highest.scalar_one())


def index_added(connection: Connection, after: int) -> None:
    """Put the entries with an id above `after` into SQLite's trigram index, in one statement.

    Call it in the transaction that inserted them, after the inserts (`after` from `last_entry`
    before them). PostgreSQL's index needs nothing: it is an index of the table itself.
    """
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql(
            f"INSERT INTO {FTS_TABLE}(rowid, {_COLUMNS})"
            f" SELECT id, {_COLUMNS} FROM searchentry WHERE id > ?",
            (after,),
        )


def drop_indexes(connection: Connection) -> None:
    """Remove what create_indexes made (the extension stays: other tables may use it)."""
    if connection.dialect.name == "sqlite":
        for suffix in ("insert", "delete", "update"):  # insert: made before migration 0026
            connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS {FTS_TABLE}_{suffix}")
        connection.exec_driver_sql(f"DROP TABLE IF EXISTS {FTS_TABLE}")
        return
    connection.exec_driver_sql(f"DROP INDEX IF EXISTS {PG_INDEX}")


def include_name(name: str | None, type_: str, _parents: object) -> bool:
    """For Alembic's autogenerate: leave out what is made here, which the models do not declare."""
    if name is None:
        return True
    if type_ == "table":
        return not (name == FTS_TABLE or name.startswith(f"{FTS_TABLE}_"))
    if type_ == "index":
        return name != PG_INDEX
    return True


def attach(table: Table) -> None:
    """Make the indexes whenever `table` is created."""

    @event.listens_for(table, "after_create")
    def _after_create(_target: Table, connection: Connection, **_kw: object) -> None:
        create_indexes(connection)
