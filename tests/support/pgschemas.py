"""PostgreSQL schemas for tests: one of their own per test, its rows copied from templates.

A test's PostgreSQL database is a schema named in its URL's search_path, as it has always
been. What changed is how a schema that needs tables gets them. Building the current schema
takes about a second on PostgreSQL (every table, index and the Alembic stamp) and importing a
bank half a second more, so they are built once per test process, as template schemas. A
test that asks for one gets a spare schema of the same shape whose every table's rows (and
every sequence's position) are replaced by the template's in one committed transaction,
renamed to the name its URL carries. Its data is committed like any other, so other
connections, other processes and real commits see it as they would see a schema built for
the test alone.

When the test ends, the schema goes back to the spares under a new name, unless its shape
changed (a migration test, a test that alters a table): then it is dropped, as before. A spare
filled from the same template before is filled again only in the tables a test wrote to since:
copying a bank's search entries again (their trigram index) costs most of a fill, and most tests
leave them as they were.
"""

import os
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import create_engine
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import NullPool

from app.infra.db import Database

POSTGRES_URL = os.environ.get(
    "QBANK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)

# Everything that gives a schema its shape, as text that does not name the schema (run with the
# schema first on the search_path; pg_get_indexdef qualifies names all the same).
SHAPE = """
SELECT md5(coalesce(string_agg(item, E'\\n' ORDER BY item), '')) FROM (
SELECT replace(item, quote_ident(current_schema()) || '.', '') AS item FROM (
  SELECT concat_ws(' ', 'rel', c.relname, c.relkind, c.relrowsecurity, pg_get_indexdef(c.oid),
                   CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END) AS item
    FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace
  UNION ALL
  SELECT concat_ws(' ', 'col', c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod),
                   a.attnotnull, a.attidentity, a.attgenerated, pg_get_expr(d.adbin, d.adrelid))
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = current_schema()::regnamespace AND a.attnum > 0
      AND NOT a.attisdropped
  UNION ALL
  SELECT concat_ws(' ', 'con', conrelid::regclass, conname, pg_get_constraintdef(oid))
    FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
  UNION ALL
  SELECT concat_ws(' ', 'trg', pg_get_triggerdef(t.oid))
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
  UNION ALL
  SELECT concat_ws(' ', 'fn', p.oid::regprocedure) FROM pg_proc p
    WHERE p.pronamespace = current_schema()::regnamespace
  UNION ALL
  SELECT concat_ws(' ', 'type', t.typname, t.typtype) FROM pg_type t
    WHERE t.typnamespace = current_schema()::regnamespace AND t.typtype NOT IN ('c', 'b')
  UNION ALL
  SELECT concat_ws(' ', 'seq', s.seqrelid::regclass, s.seqtypid::regtype, s.seqstart,
                   s.seqincrement, s.seqmax, s.seqmin, s.seqcycle)
    FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
    WHERE c.relnamespace = current_schema()::regnamespace
) named) items
"""

TABLES = """
SELECT c.relname FROM pg_class c
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
"""

REFERENCES = """
SELECT c.relname, p.relname FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
WHERE k.connamespace = current_schema()::regnamespace AND k.contype = 'f'
"""

HAS_RELATIONS = (
    "SELECT EXISTS (SELECT FROM pg_class WHERE relnamespace = current_schema()::regnamespace)"
)

SEQUENCES = """
SELECT c.relname FROM pg_class c
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'S'
"""


# The catalogs each schema made or dropped adds rows to (its tables, columns, types, indexes,
# constraints, sequences, toast tables and the dependencies between them).
CATALOGS = (
    "pg_class",
    "pg_attribute",
    "pg_type",
    "pg_depend",
    "pg_index",
    "pg_namespace",
    "pg_constraint",
    "pg_attrdef",
    "pg_sequence",
    "pg_trigger",
)


def compact_catalogs(url: str) -> None:
    """Rewrite the test database's catalogs without the rows of schemas dropped since.

    The tests make and drop hundreds of schemas a run. A server whose autovacuum is off (some
    are set up so) keeps every dead catalog row, and every catalog lookup (SQLAlchemy's list of
    tables, a schema's shape) reads them all: each run slower than the last, the server's CPU
    for one run doubled after a few. A role that may not vacuum a catalog is only warned.
    """
    engine = create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        with engine.connect() as connection:
            names = ", ".join(f"pg_catalog.{name}" for name in CATALOGS)
            connection.exec_driver_sql(f"VACUUM FULL {names}")
    finally:
        engine.dispose()


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def in_schema(connection: Connection, schema: str) -> None:
    """Put `schema` alone on the search_path until the transaction ends."""
    connection.exec_driver_sql(f"SET LOCAL search_path TO {quoted(schema)}")


def parents_first(tables: list[str], references: list[tuple[str, str]]) -> list[str]:
    """`tables` ordered so that every table comes after the tables it references."""
    needs: dict[str, set[str]] = {t: set() for t in tables}
    for child, parent in references:
        if child != parent:
            needs[child].add(parent)
    ordered: list[str] = []
    while needs:
        ready = sorted(t for t, parents in needs.items() if not parents & needs.keys())
        if not ready:
            raise RuntimeError(f"foreign keys in a cycle among {sorted(needs)}")
        ordered += ready
        for table in ready:
            del needs[table]
    return ordered


@dataclass
class Template:
    schema: str
    shape: str
    tables: list[str]  # parents first
    sequences: list[str]
    rows: dict[str, int]  # each table's row count


@dataclass
class Rows:
    """What a spare's rows are: template `key`'s, as the transaction `xid` wrote them (or an
    earlier fill from the same template, for the tables that one left as they were)."""

    key: str
    xid: str


def written_since(template: Template, schema: str, xid: str) -> list[str]:
    """A query for the tables of `schema` that are not as the fill in transaction `xid` left
    them: rows inserted or updated by a later transaction (a younger xmin), or a count that
    is not the template's (rows deleted). Ages, not xids, so that wraparound compares right."""
    return [
        f"SELECT {literal(table)} FROM (SELECT count(*) AS n, count(*) FILTER"
        f" (WHERE age(xmin) < age({literal(xid)}::xid)) AS young"
        f" FROM {quoted(schema)}.{quoted(table)}) t WHERE n <> {count} OR young > 0"
        for table, count in template.rows.items()
    ]


def literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class PostgresSchemas:
    """The PostgreSQL schemas of one test process: the tests' own, templates and spares."""

    def __init__(self, url: str, worker: str) -> None:
        self.url = url
        self.prefix = f"t_{worker}_{uuid.uuid4().hex[:8]}"
        # One connection for all of this, kept: a new one costs ~40 ms.
        self.admin: Engine = create_engine(url, pool_size=1, max_overflow=2)
        self.made: dict[str, str] = {}  # URL → schema, the schemas handed to tests
        self.lent: set[str] = set()  # those of them that came from the spares
        self.templates: dict[str, Template] = {}
        self.spares: defaultdict[str, list[str]] = defaultdict(list)  # shape → schemas
        self.rows: dict[str, Rows] = {}  # schema → what its rows are, for spares and lent ones
        self.counter = 0

    def _name(self, kind: str) -> str:
        self.counter += 1
        return f"{self.prefix}_{kind}{self.counter}"

    def url_of(self, schema: str) -> str:
        return f"{self.url}?options=-csearch_path%3D{schema}"

    def new(self) -> str:
        """The URL of a new, empty schema of the test's own."""
        schema = f"t_{uuid.uuid4().hex[:16]}"
        with self.admin.begin() as connection:
            connection.exec_driver_sql(f"CREATE SCHEMA {quoted(schema)}")
        url = self.url_of(schema)
        self.made[url] = schema
        return url

    def _shape(self, connection: Connection, schema: str) -> str:
        in_schema(connection, schema)
        return connection.exec_driver_sql(SHAPE).scalar_one()

    def _build(self, kind: str, build: Callable[[Database], object]) -> str:
        """A new schema made the way a test would make it: upgraded, then `build`."""
        schema = self._name(kind)
        with self.admin.begin() as connection:
            connection.exec_driver_sql(f"CREATE SCHEMA {quoted(schema)}")
        database = Database.open(self.url_of(schema))
        try:
            database.upgrade()
            build(database)
        finally:
            database.dispose()
        return schema

    def _template(self, key: str, build: Callable[[Database], object]) -> Template:
        template = self.templates.get(key)
        if template is None:
            schema = self._build("template", build)
            with self.admin.begin() as connection:
                shape = self._shape(connection, schema)
                tables = [row[0] for row in connection.exec_driver_sql(TABLES)]
                references = [(row[0], row[1]) for row in connection.exec_driver_sql(REFERENCES)]
                sequences = [row[0] for row in connection.exec_driver_sql(SEQUENCES)]
                rows = {
                    table: connection.exec_driver_sql(
                        f"SELECT count(*) FROM {quoted(table)}"
                    ).scalar_one()
                    for table in tables
                }
            template = Template(schema, shape, parents_first(tables, references), sequences, rows)
            self.templates[key] = template
        return template

    def _spare(self, key: str, template: Template, build: Callable[[Database], object]) -> str:
        """A schema shaped like `template`, its rows whatever its last test left: one that held
        template `key`'s rows before if there is one."""
        spares = self.spares[template.shape]
        for at, spare in enumerate(spares):
            if (rows := self.rows.get(spare)) is not None and rows.key == key:
                return spares.pop(at)
        if spares:
            return spares.pop()
        schema = self._build("spare", build)
        with self.admin.begin() as connection:
            shape = self._shape(connection, schema)
        if shape != template.shape:
            raise RuntimeError(f"{schema} was built unlike its template {template.schema}")
        return schema

    def fill(self, key: str, url: str, build: Callable[[Database], object]) -> bool:
        """Give the test's schema of `url` template `key`'s tables and rows; False if it can't.

        The template is built with `build` the first time. Only an empty schema that `new`
        made is filled: the caller builds any other database itself.
        """
        schema = self.made.get(url)
        if schema is None:
            return False
        with self.admin.begin() as connection:
            in_schema(connection, schema)
            if connection.exec_driver_sql(HAS_RELATIONS).scalar_one():
                return False
        template = self._template(key, build)
        spare = self._spare(key, template, build)
        source, target = quoted(template.schema), quoted(spare)
        stale = self._stale(key, template, spare)
        # Triggers off: the rows are copied as they are, the trigger-kept counts with them.
        statements = ["SET LOCAL session_replication_role = replica"]
        statements += [
            f"DELETE FROM {target}.{quoted(t)}" for t in reversed(template.tables) if t in stale
        ]
        statements += [
            f"INSERT INTO {target}.{quoted(t)} SELECT * FROM {source}.{quoted(t)}"
            for t in template.tables
            if t in stale
        ]
        statements += [
            f"SELECT setval('{target}.{quoted(s)}', last_value, is_called)"
            f" FROM {source}.{quoted(s)}"
            for s in template.sequences
        ]
        statements += [
            f"DROP SCHEMA {quoted(schema)}",
            f"ALTER SCHEMA {target} RENAME TO {quoted(schema)}",
        ]
        with self.admin.begin() as connection:
            connection.exec_driver_sql(";\n".join(statements))
            xid = connection.exec_driver_sql("SELECT pg_current_xact_id()::xid::text").scalar_one()
        self.rows.pop(spare, None)
        self.rows[schema] = Rows(key, xid)
        self.lent.add(schema)
        return True

    def _stale(self, key: str, template: Template, spare: str) -> set[str]:
        """The tables of `spare` that must be copied from `template` again."""
        rows = self.rows.get(spare)
        if rows is None or rows.key != key:
            return set(template.tables)
        query = " UNION ALL ".join(written_since(template, spare, rows.xid))
        with self.admin.begin() as connection:
            return {row[0] for row in connection.exec_driver_sql(query)}

    def release(self, url: str) -> None:
        """Take back the schema of `url` at the end of its test: keep it as a spare, or drop it."""
        schema = self.made.pop(url)
        with self.admin.begin() as connection:
            if schema in self.lent:
                self.lent.discard(schema)
                shape = self._shape(connection, schema)
                if any(t.shape == shape for t in self.templates.values()):
                    spare = self._name("spare")
                    connection.exec_driver_sql(
                        f"ALTER SCHEMA {quoted(schema)} RENAME TO {quoted(spare)}"
                    )
                    self.spares[shape].append(spare)
                    if (rows := self.rows.pop(schema, None)) is not None:
                        self.rows[spare] = rows
                    return
            self.rows.pop(schema, None)
            connection.exec_driver_sql(f"DROP SCHEMA {quoted(schema)} CASCADE")

    def close(self) -> None:
        """Drop the templates and spares (at the end of the test process)."""
        schemas = [t.schema for t in self.templates.values()]
        schemas += [s for spares in self.spares.values() for s in spares]
        try:
            if schemas:
                with self.admin.begin() as connection:
                    for schema in schemas:
                        connection.exec_driver_sql(f"DROP SCHEMA {quoted(schema)} CASCADE")
        finally:
            self.admin.dispose()
