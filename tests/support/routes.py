"""The app's own route list, and the statements a request runs, for tests over every route."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from sqlalchemy import event
from sqlalchemy.engine import Engine
from starlette.routing import Mount


def app_routes(app: FastAPI) -> list[tuple[str, str]]:
    """Every (method, path) the app answers, HEAD aside; a mount counts as one GET."""
    found = []
    for route in iter_route_contexts(app.routes):
        if isinstance(route.original_route, Mount):
            found.append(("GET", route.path))
        else:
            found.extend((method, route.path) for method in sorted(route.methods - {"HEAD"}))
    # Sign out last, or the session would be gone for the routes after it.
    return sorted(found, key=lambda route: route == ("POST", "/logout"))


@contextmanager
def statements(engine: Engine) -> Iterator[list[str]]:
    """Every statement run on `engine` meanwhile, lower-cased."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.append(statement.strip().lower())

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def written_tables(seen: list[str]) -> set[str]:
    """The tables the statements write (INSERT, UPDATE, DELETE), lower-cased.

    A write lock taken to write nothing counts too, as the table `(lock)`: SQLite's `BEGIN
    IMMEDIATE` and a `SELECT … FOR UPDATE` both make every other writer wait.
    """
    found, locked = set(), False
    for sql in seen:
        words = sql.split()
        if words[0] in ("insert", "delete") and len(words) > 2:
            found.add(words[2].strip('"'))
        elif words[0] == "update":
            found.add(words[1].strip('"'))
        elif sql.startswith("begin immediate") or " for update" in sql:
            locked = True
    return found or ({"(lock)"} if locked else set())
