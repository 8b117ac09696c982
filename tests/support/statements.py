"""Compiled SQL shared by every engine the tests open, as one server process shares it.

SQLAlchemy compiles a statement once per engine: its cache is keyed by the engine's dialect
object. A server opens one engine and compiles each statement once in its life; the tests open
an engine per test, so each of them compiled again every statement its requests ran (an eighth
of the test processes' CPU). Here every engine of one kind (the dialect's class, its database
driver and the server's version) keeps its compiled statements in one cache, through the
`compiled_cache` execution option, as a long-lived process would.
"""

from collections.abc import Hashable
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Dialect, Engine
from sqlalchemy.util import LRUCache

# Enough for every statement of the suite on one backend: each entry is one statement's shape.
STATEMENTS = 5_000


class SharedStatements:
    """One kind of dialect's compiled statements, whichever engine compiled them.

    SQLAlchemy's key starts with the dialect object; engines of the same kind compile a
    statement the same way, so that part is left out.
    """

    def __init__(self) -> None:
        self._compiled: LRUCache[Hashable, Any] = LRUCache(STATEMENTS)

    def get(self, key: tuple[Any, ...], default: Any = None) -> Any:
        return self._compiled.get(key[1:], default)

    def __setitem__(self, key: tuple[Any, ...], compiled: Any) -> None:
        self._compiled[key[1:]] = compiled


_shared: dict[tuple[object, ...], SharedStatements] = {}


def _kind(dialect: Dialect) -> tuple[object, ...]:
    return (type(dialect), dialect.driver, dialect.server_version_info)


def _share(connection: Connection) -> None:
    engine = connection.engine
    if "compiled_cache" in engine.get_execution_options():
        return
    shared = _shared.setdefault(_kind(connection.dialect), SharedStatements())
    engine.update_execution_options(compiled_cache=shared)
    connection.execution_options(compiled_cache=shared)  # made before the engine's options


def share_compiled_statements() -> None:
    """From now on, every engine of this process shares compiled statements with its kind."""
    if not event.contains(Engine, "engine_connect", _share):
        event.listen(Engine, "engine_connect", _share)
