"""Overload and a database that cannot write: 503 with Retry-After and a clear reason; 405 Allow."""

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.accounts.learners import get_learner
from app.config import Settings
from app.content.bank.sync import import_content
from app.infra import db
from app.infra.models import ReviewLog
from app.main import create_app
from app.strings.errors import ERROR_STRINGS
from app.web.overload import BUSY, READ_ONLY

pytestmark = pytest.mark.storage


def _app(url: str, bank_dir: Path) -> FastAPI:
    settings = Settings(_env_file=None, database_url=url, content_dir=bank_dir)  # type: ignore[call-arg]
    return create_app(settings)


def _read_only(url: str) -> str:
    """The same database, opened so that every write fails as on a read-only file or a standby."""
    if url.startswith("sqlite:///"):
        return f"sqlite:///file:{url.removeprefix('sqlite:///')}?mode=ro&uri=true"
    return url + "%20-cdefault_transaction_read_only%3Don"


def _reviews(engine: Engine) -> int:
    from sqlmodel import func, select

    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(ReviewLog)).one()


def test_a_rating_on_a_read_only_database_is_a_503_that_says_why(
    app: FastAPI, database_url: str, bank_dir: Path
) -> None:
    with app.state.database.session() as session:
        get_learner(session, "local", "UTC")
    read_only = _app(_read_only(database_url), bank_dir)
    # Without `with`: no lifespan, so no checkpoint thread on the read-only file.
    client = TestClient(read_only, headers={"Accept-Language": "en"})
    served = client.get("/api/study/next")
    assert served.status_code == 200
    card_id = served.json()["id"]
    response = client.post("/api/reviews", json={"card_id": card_id, "rating": 3})
    assert response.status_code == 503
    assert response.headers["retry-after"] == "10"
    assert response.json() == {"detail": ERROR_STRINGS[READ_ONLY][1], "code": "read_only"}
    page = client.post("/settings", data={"new_per_day": "3"})
    assert page.status_code in (400, 503)  # a form error first, or the refused write
    assert "Traceback" not in page.text
    assert _reviews(app.state.database.engine) == 0
    read_only.state.database.dispose()


@pytest.fixture
def small_pool(
    monkeypatch: pytest.MonkeyPatch, database_url: str, bank_dir: Path
) -> Iterator[FastAPI]:
    monkeypatch.setattr(db, "POOL_WAIT_SECONDS", 0.2)
    app = _app(database_url, bank_dir)
    app.state.database.upgrade()  # before its lifespan: written to first
    import_content(bank_dir, app.state.database)
    yield app
    app.state.database.engine.dispose()


def test_an_exhausted_pool_sheds_with_503_and_recovers_at_once(small_pool: FastAPI) -> None:
    engine = small_pool.state.database.engine
    client = TestClient(small_pool, headers={"Accept-Language": "en"})
    assert client.get("/api/study/next").status_code == 200
    with ExitStack() as held:
        size = engine.pool.size() + engine.pool._max_overflow  # every connection it may open
        for _ in range(size):
            held.enter_context(engine.connect())
        response = client.get("/api/study/next")
        assert response.status_code == 503
        assert response.headers["retry-after"] == "2"
        assert response.json() == {"detail": ERROR_STRINGS[BUSY][1], "code": "busy"}
        page = client.get("/")
        assert page.status_code == 503
        assert ERROR_STRINGS[BUSY][1] in page.text
    assert client.get("/api/study/next").status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [("PUT", "/api/reviews", "POST"), ("DELETE", "/api/study/next", "GET"), ("PATCH", "/", "GET")],
)
def test_405_names_the_allowed_methods(
    client: TestClient, method: str, path: str, allow: str
) -> None:
    response = client.request(method, path)
    assert response.status_code == 405
    assert allow in response.headers["allow"]


def test_the_api_declares_its_503s_and_422s(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    api = {path: ops for path, ops in spec["paths"].items() if path.startswith("/api/")}
    assert {"/api/study/next", "/api/reviews", "/api/search"} <= set(api)
    for path, operations in api.items():
        assert operations, path
        for method, operation in operations.items():
            assert "503" in operation["responses"], (method, path)
            if operation.get("parameters") or "requestBody" in operation:
                assert "422" in operation["responses"], (method, path)
