"""Helpers of the real-browser tests (their fixtures are in tests/browser/conftest.py): qbank
served from a background thread, SQLite banks copied and read back, and what the pages of a
browser context asked for.
"""

import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import Page

from app.config import Settings
from app.infra.db import Database
from app.main import build_routes
from tests.support import apps

# The checkout: its content/ is the bundled bank.
REPO = Path(__file__).resolve().parents[2]


class ServerClock:
    """The time a test server's requests see: the real time, or a set time running on from there."""

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def set(self, moment: datetime) -> None:
        self.offset = moment - datetime.now(UTC)


def open_bank(settings: Settings) -> Database:
    """The Database of `settings`, its schema up to date; the caller disposes of it."""
    database = Database.open(settings.database_url)
    database.upgrade()
    return database


@contextmanager
def serve(settings: Settings, clock: ServerClock | None = None) -> Iterator[str]:
    """Run qbank with `settings` in a background thread; yield its origin."""
    app = apps.take(settings)
    build_routes(app)  # as `qbank serve` does: the browser's first requests come at once
    app.state.database.upgrade()  # its lifespan, which would, is off
    stopped = False
    try:
        if clock is not None:
            app.state.clock = clock.now
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
            thread.start()
            try:
                deadline = time.monotonic() + 60  # a bound for a server that never starts
                while not server.started:
                    if not thread.is_alive() or time.monotonic() > deadline:
                        pytest.fail("the test server did not start")
                    time.sleep(0.02)
                yield f"http://127.0.0.1:{sock.getsockname()[1]}"
            finally:
                server.should_exit = True
                thread.join(timeout=10)
                stopped = not thread.is_alive()
    finally:
        app.state.database.dispose()
        if stopped:
            apps.give_back(app)


def bundled_settings(db: Path) -> Settings:
    return Settings(database_url=f"sqlite:///{db}", content_dir=REPO / "content", mode="local")


def team_settings(db: Path) -> Settings:
    """Team mode over the bundled content in the SQLite file `db`, read from no .env file."""
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=f"sqlite:///{db}",
        content_dir=REPO / "content",
        mode="team",
        secret_key="browser-test-secret-" + "x" * 32,
    )


def copy_bank(source: Path, target: Path) -> None:
    """Copy an SQLite bank with its write-ahead log, through SQLite's backup API."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


def query(bank: Path, sql: str, *params: object) -> list[tuple]:
    with sqlite3.connect(bank) as connection:
        return connection.execute(sql, params).fetchall()


@dataclass
class Traffic:
    """What the pages of one browser context asked for, and how it went."""

    origin: str
    requests: list[str] = field(default_factory=list)
    responses: list[tuple[str, int]] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    # What the browser refused under the Content-Security-Policy, as it reports it on the console.
    csp_violations: list[str] = field(default_factory=list)

    def foreign(self) -> list[str]:
        return [url for url in self.requests if not url.startswith(self.origin + "/")]

    def failed(self) -> list[tuple[str, int]]:
        return [(url, status) for url, status in self.responses if status >= 400]


NewPage = Callable[..., Page]
