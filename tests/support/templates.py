"""SQLite databases built once per test process and copied into each test's own file."""

import hashlib
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from sqlalchemy.engine import make_url

from app.content.bank.sync import import_content
from app.infra.db import Database
from tests.support.pgschemas import PostgresSchemas


def copy_sqlite(source: Path, target: Path) -> None:
    """Copy an SQLite database with its write-ahead log, through SQLite's backup API."""
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def content_key(root: Path) -> str:
    """A digest of every file under `root`: its path inside `root` and its bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


class Templates:
    """Databases made once (the current schema, a bank imported) and copied per test.

    A test gets a database of its own, as if it had made it, without creating the schema or
    importing (and rendering) the same content again: an SQLite file copied with the backup
    API, or a PostgreSQL schema whose rows are copied from a template schema (`pgschemas`).
    """

    def __init__(self, root: Path, postgres: PostgresSchemas) -> None:
        self.root = root
        self.postgres = postgres
        self.made: dict[str, Path] = {}

    def copy(self, key: str, database_url: str, build: Callable[[Database], object]) -> bool:
        """Fill the database of `database_url` from template `key`; False if none fits.

        Nothing is copied over a file that already exists, nor into a PostgreSQL schema that
        the `make_database_url` fixture did not make or that has tables: the caller then
        builds that database itself.
        """
        url = make_url(database_url)
        if url.get_backend_name() == "postgresql":
            return self.postgres.fill(key, database_url, build)
        if url.get_backend_name() != "sqlite" or not url.database:
            return False
        target = Path(url.database)
        if target.exists():
            return False
        source = self.made.get(key)
        if source is None:
            source = self.root / f"template-{len(self.made)}.db"
            database = Database.open(f"sqlite:///{source}")
            try:
                database.upgrade()
                build(database)
            finally:
                database.dispose()
            self.made[key] = source
        copy_sqlite(source, target)
        return True

    def schema(self, database_url: str) -> bool:
        """Give `database_url` the current schema, with no rows."""
        return self.copy("schema", database_url, lambda database: None)

    def bank(self, database_url: str, content_dir: Path) -> bool:
        """Give `database_url` the schema and the content of `content_dir`, imported."""
        key = f"bank-{content_key(content_dir)}"
        return self.copy(key, database_url, lambda database: import_content(content_dir, database))
