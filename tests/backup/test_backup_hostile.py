"""Poisoned backups: every number finite and in the scheduler's range, sane dates, bounded depth.

A restore that accepted any of these left the learner's study pages answering 500.
"""

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.backup import BackupError
from app.content.bank.sync import import_content
from app.infra.db import Database
from tests.support.backup import (
    CONTENT,
    _with,
    backup,
    dump,
    fresh_engine,
    make_client,
    restore,
    simulate_week,
)

pytestmark = pytest.mark.storage


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A valid backup of a studied week."""
    root = tmp_path_factory.mktemp("hostile")
    for rel, text in CONTENT.items():
        (root / "content" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "content" / rel).write_text(text.lstrip("\n"), encoding="utf-8")
    engine = fresh_engine(root / "studied.db")
    import_content(root / "content", engine)
    simulate_week(engine)
    data = backup(engine)
    engine.dispose()
    return data


def _text(data: dict[str, Any], path: str, literal: str) -> str:
    """The document as JSON text with the value at `path` written as `literal` (NaN, 1e400)."""
    return json.dumps(_with(data, path, "@@here@@")).replace('"@@here@@"', literal)


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


POISONS: list[tuple[str, Callable[[dict[str, Any]], Any], str]] = [
    (
        "NaN parameters",
        lambda d: _text(d, "learner.settings.fsrs_parameters", "[" + ", ".join(["NaN"] * 21) + "]"),
        "invalid backup: NaN is not a number a backup can hold",
    ),
    (
        "infinite stability",
        lambda d: _text(d, "states.0.stability", "1e400"),
        "invalid backup: states[0].stability: Input should be a finite number",
    ),
    (
        "NaN stability",
        lambda d: _text(d, "states.0.stability", "NaN"),
        "invalid backup: NaN is not a number",
    ),
    (
        "negative stability",
        lambda d: _with(d, "states.0.stability", -3.0),
        "invalid backup: states[0].stability: Input should be greater than 0",
    ),
    (
        "difficulty off the scale",
        lambda d: _with(d, "states.0.difficulty", 50.0),
        "invalid backup: states[0].difficulty: Input should be less than or equal to 10",
    ),
    (
        "a year-1 due date",
        lambda d: _with(d, "states.0.due", "0001-01-01T00:00:00+00:00"),
        "invalid backup: states[0].due: Value error, 0001-01-01T00:00:00+00:00 is outside",
    ),
    (
        "a malformed state_before",
        lambda d: _with(d, "reviews.2.state_before", {"state": 9, "due": "never"}),
        "invalid backup: reviews[2].state_before.state: Input should be 1, 2 or 3",
    ),
    (
        "state_before not an object",
        lambda d: _with(d, "reviews.2.state_before", "junk"),
        "invalid backup: reviews[2].state_before: Input should be a valid dictionary",
    ),
    (
        "an int past 64 bits",
        lambda d: _with(d, "states.0.reps", 2**70),
        "invalid backup: states[0].reps: Input should be less than or equal to 2147483647",
    ),
    (
        "a practice id past 64 bits",
        lambda d: _with(d, "practice.0.id", 2**64),
        "invalid backup: practice[0].id: Input should be less than or equal to 2147483647",
    ),
    (
        "nesting 20 deep",
        lambda d: _with(d, "reviews.0.state_after", _nested(20)),
        "invalid backup: nested deeper than 16 levels",
    ),
    (
        "nesting 100,000 deep",
        lambda d: _text(d, "reviews.0.state_after", "[" * 100_000 + "]" * 100_000),
        "invalid backup: nested deeper than 16 levels",
    ),
]


@pytest.mark.parametrize(
    ("change", "message"), [p[1:] for p in POISONS], ids=[p[0] for p in POISONS]
)
def test_poisoned_documents_are_refused_and_write_nothing(
    database: Database, document: dict[str, Any], change: Callable[..., Any], message: str
) -> None:
    restore(database, {**document, "states": [], "reviews": [], "practice": []})
    before = dump(database)
    with pytest.raises(BackupError) as raised:
        restore(database, change(json.loads(json.dumps(document))))
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)
    assert dump(database) == before


@pytest.fixture
def client(
    make_database_url: Callable[[str], str], write_content: Callable[..., Path]
) -> Iterator[TestClient]:
    with make_client(make_database_url("web"), write_content(CONTENT)) as client:
        yield client


@pytest.mark.parametrize(
    ("change", "message"), [p[1:] for p in POISONS], ids=[p[0] for p in POISONS]
)
def test_a_poisoned_upload_is_refused_and_the_study_pages_still_answer(
    client: TestClient, document: dict[str, Any], change: Callable[..., Any], message: str
) -> None:
    body = change(json.loads(json.dumps(document)))
    raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    response = client.post("/backup/restore", files={"file": ("b.json", raw, "application/json")})
    assert response.status_code == 400
    assert 'id="restore-error"' in response.text
    assert message.split(": ")[-1].split(",")[0] in response.text
    for path in ("/", "/study", "/api/study/next", "/stats"):
        assert client.get(path).status_code == 200, path
