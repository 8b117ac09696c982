"""A disk that fills up while a learner studies: 503 with a reason, nothing lost or half-written.

SQLite's `PRAGMA max_page_count`, set on every connection of the app, stops the database from
growing: the write that needs a new page fails with SQLITE_FULL ("database or disk is full"),
exactly as on a full disk. PostgreSQL has no such switch without a real full file system;
its disk-full error (SQLSTATE 53100) is checked where it is classified.
"""

from typing import Any

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event, text
from sqlalchemy.exc import InternalError, OperationalError

from app.strings.errors import ERROR_STRINGS
from app.web.overload import FULL, READ_ONLY, database_problem

pytestmark = pytest.mark.storage

ZH, EN = ERROR_STRINGS[FULL]


def _no_growth(dbapi_connection: Any, _record: Any) -> None:
    # Clamped to the current size: "no more pages than the file has now".
    dbapi_connection.execute("PRAGMA max_page_count = 1")


def _fill_up(app: FastAPI) -> None:
    """From now on the app's database cannot grow by a single page."""
    event.listen(app.state.database.engine, "connect", _no_growth)
    app.state.database.engine.dispose()  # connections made from now on carry the limit


def _free_space(app: FastAPI) -> None:
    event.remove(app.state.database.engine, "connect", _no_growth)
    app.state.database.engine.dispose()


# A full disk is simulated with SQLite's max_page_count.
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_a_rating_the_full_disk_cannot_hold_is_a_503_and_is_stored_once_space_is_freed(
    app: FastAPI, bank
) -> None:
    # Without `with`: no lifespan, so no checkpoint thread writing outside the limit.
    client = TestClient(app, headers={"Accept-Language": "en"})
    card = client.get("/api/study/next").json()
    _fill_up(app)
    acknowledged = 0
    for n in range(1000):  # until a rating needs a page the database may not take
        key = f"full-{n}"
        body = {"card_id": card["id"], "rating": 1, "version": card["version"]}
        answer = client.post("/api/reviews", json=body, headers={"Idempotency-Key": key})
        if answer.status_code != 200:
            break
        acknowledged += 1
        card = answer.json()["next"]
    else:
        pytest.fail("1000 ratings fitted in the database as it was: the limit did not apply")

    assert answer.status_code == 503, answer.text
    assert answer.json() == {"detail": EN, "code": "disk_full"}
    assert answer.headers["retry-after"] == "10"
    zh = client.post(
        "/api/reviews", json=body, headers={"Idempotency-Key": key, "Accept-Language": "zh"}
    )
    assert (zh.status_code, zh.json()) == (503, {"detail": ZH, "code": "disk_full"})
    # The same rating from the page's plain form (no JavaScript): the error page, in Chinese.
    form = {**body, "idempotency_key": key}
    page = client.post("/study/review", data=form, headers={"Accept-Language": "zh"})
    assert page.status_code == 503
    assert ZH in page.text
    assert "Traceback" not in page.text
    # Every acknowledged rating is there, the refused one is not, and the file is sound.
    assert len(bank.logs()) == acknowledged
    with app.state.database.engine.connect() as connection:
        assert connection.execute(text("PRAGMA integrity_check")).scalar() == "ok"

    _free_space(app)
    # The study page's outbox sends the kept rating again, with its key: stored once.
    again = client.post("/api/reviews", json=body, headers={"Idempotency-Key": key})
    assert again.status_code == 200, again.text
    assert again.json()["replayed"] is False
    repeat = client.post("/api/reviews", json=body, headers={"Idempotency-Key": key})
    assert repeat.json()["replayed"] is True
    assert len(bank.logs()) == acknowledged + 1


def _wrapped(error: Exception, kind: type[OperationalError] | type[InternalError]) -> Exception:
    return kind("INSERT INTO reviewlog …", {}, error)


def test_postgresqls_disk_full_and_read_only_errors_get_their_reasons() -> None:
    # In the server's language, which need not be English: the SQLSTATE decides.
    full = psycopg.errors.DiskFull("konnte Datei nicht erweitern: kein Speicherplatz")
    assert database_problem(_wrapped(full, OperationalError)) == FULL
    standby = psycopg.errors.ReadOnlySqlTransaction("INSERT kann nicht ausgeführt werden")
    assert database_problem(_wrapped(standby, InternalError)) == READ_ONLY
