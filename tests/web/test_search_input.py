"""Any search input is answered 2xx or 400 on both databases; only unavailability is a 503."""

import logging
import re
import sqlite3
from pathlib import Path

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from app.web.deps import SessionDep
from app.web.overload import BUSY, UNAVAILABLE, database_problem

pytestmark = pytest.mark.storage

CONTROL = [
    "abc\x00def",
    "gpu\x00",
    "\x00\x00\x00",
    "\x00",
    "ge\x01mm",
    "kv\x1bcache",
    "kernel\x7f",
    "fusion\x85",
    "\x0bgemm",
]
FINE = ["", "gpu", "gemm\tkernel", "kv\ncache", "显存", '"unterminated', "a%_\\", "x" * 200, " "]


@pytest.mark.parametrize("query", CONTROL)
def test_control_characters_are_a_400_before_the_database(client, find, caplog, query):
    caplog.set_level(logging.WARNING, logger="qbank")
    api = client.get("/api/search", params={"q": query})
    assert (api.status_code, api.json()["code"]) == (400, "search_control_characters"), api.text
    page = client.get("/search", params={"q": query})
    assert page.status_code == 400
    assert find(page.text, "search-error") is not None
    assert "\x00" not in page.text
    field = find(page.text, "q")
    assert field is not None and field.attrs["value"] == re.sub(r"[\x00-\x1f\x7f-\x9f]", "", query)
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_the_refusal_is_said_in_the_readers_language(client):
    refused = client.get(
        "/api/search", params={"q": "abc\x00def"}, headers={"Accept-Language": "zh"}
    )
    assert (refused.status_code, refused.json()["code"]) == (400, "search_control_characters")
    assert refused.json()["detail"].startswith("搜索词里有控制字符")
    english = client.get(
        "/api/search", params={"q": "abc\x00def"}, headers={"Accept-Language": "en"}
    )
    assert english.json()["detail"].startswith("The search contains control characters")


@pytest.mark.parametrize("path", ["/api/search", "/search"])
def test_a_control_character_in_the_deck_is_a_400(client, path):
    assert client.get(path, params={"q": "gemm", "deck": "mock\x00"}).status_code == 400


@pytest.mark.parametrize("query", FINE)
def test_other_input_is_searched(client, query):
    assert client.get("/api/search", params={"q": query}).status_code == 200
    assert client.get("/search", params={"q": query}).status_code == 200


def test_a_statement_the_database_refuses_is_no_outage(app: FastAPI, caplog):
    """SQL in error is the app's fault: a 500 without Retry-After, never a 503."""

    def broken(session: SessionDep) -> None:
        session.connection().execute(text("SELECT no_such_column FROM no_such_table"))

    app.add_api_route("/api/broken", broken)
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/api/broken")
    assert answer.status_code == 500
    assert "retry-after" not in answer.headers


def _sqlite_error(path: Path, statement: str, *values: str) -> OperationalError:
    """The real error SQLite raises for `statement`, as SQLAlchemy wraps it."""
    connection = sqlite3.connect(path, timeout=0)
    try:
        connection.execute(statement, values)
    except sqlite3.OperationalError as exc:
        return OperationalError(statement, {}, exc)
    finally:
        connection.close()
    raise AssertionError("no error")


def test_sqlites_errors_are_told_apart_by_their_codes(tmp_path: Path):
    path = tmp_path / "x.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE VIRTUAL TABLE t USING fts5(a, tokenize='trigram')")
    # What a NUL in a search term did: FTS5 reads its query as a C string, cut at the NUL.
    bad_query = _sqlite_error(path, "SELECT * FROM t WHERE t MATCH ?", '"abc\x00def"')
    assert "unterminated string" in str(bad_query.orig)
    assert database_problem(bad_query) is None
    holder = sqlite3.connect(path)
    holder.execute("BEGIN IMMEDIATE")
    try:
        locked = _sqlite_error(path, "INSERT INTO t VALUES ('x')")
    finally:
        holder.rollback()
        holder.close()
    assert database_problem(locked) == BUSY


def test_postgresqls_errors_are_told_apart_by_their_sqlstate():
    def wrapped(error: Exception) -> OperationalError:
        return OperationalError("SELECT …", {}, error)

    assert database_problem(wrapped(psycopg.errors.SyntaxError("syntax error"))) is None
    assert database_problem(wrapped(psycopg.errors.QueryCanceled("timeout"))) == BUSY
    assert database_problem(wrapped(psycopg.errors.AdminShutdown("shutdown"))) == UNAVAILABLE
    assert database_problem(wrapped(psycopg.OperationalError("connection refused"))) == UNAVAILABLE
