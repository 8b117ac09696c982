"""Shared test helpers (from test_interview.py)."""

import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from app.infra.models import CardState
from tests.support.banks import commit
from tests.support.web_bank import KERNELS_DECK, NOTES_DECK, START, TOPICS

MOCK_DECK = """
---
title: Mock
slug: mock
language: en
style: numbered
---

## 1. What is a cache line? {#line}

**Answer.**

- The unit a cache moves: 64 B on CPUs.
- On NVIDIA GPUs 128 B, in four 32 B sectors.
- Neighbouring data comes along for free.

**Follow-ups.**

- Q: Why does false sharing hurt?
  A: Two cores write one line and it moves back and forth between them.
- Q: What is a sector?
  A: The 32 B unit that L2 fills and moves.

**Continue reading.** Operator Fusion

## 2. What does a TLB do? {#tlb}

**Answer.** It caches page translations. A miss walks the page table. Huge pages reach further.
"""

WEBM = b"\x1a\x45\xdf\xa3" + b"\x00" * 2000  # an EBML header, then anything


@pytest.fixture
def bank_dir(write_content: Callable[[dict[str, str]], Path]) -> Path:
    return write_content(
        {
            "decks/a-kernels.md": KERNELS_DECK,
            "decks/b-notes.md": NOTES_DECK,
            "decks/c-mock.md": MOCK_DECK,
            **TOPICS,
        }
    )


def days(n: float) -> str:
    return (START + timedelta(days=n)).date().isoformat()


def set_state(bank, card_id: str, *, stability: float, days_ago: float, due_in: float) -> None:
    """A hand-built review state: last reviewed `days_ago`, due in `due_in` days."""
    learner = bank.learner()
    with bank.database.session() as session:
        session.merge(
            CardState(
                learner_id=learner.id,
                card_id=card_id,
                state=2,
                stability=stability,
                difficulty=5.0,
                due=START + timedelta(days=due_in),
                last_review=START - timedelta(days=days_ago),
                reps=3,
                version=1,
            )
        )
        commit(session)


def start_mock(client, **form: str) -> str:
    response = client.post("/interview/mock", data={"count": "2", **form})
    assert response.status_code == 303, response.text
    assert re.fullmatch(r"/interview/mock/\d+", response.headers["location"])
    return response.headers["location"]


@pytest.fixture
def second(make_database_url, bank_dir):
    """Another instance over its own database with the same bank, to restore into."""
    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.content.bank.sync import import_content
    from app.main import create_app

    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=make_database_url("second"),
        content_dir=bank_dir,
        learner_name="local",
        timezone="UTC",
    )
    app = create_app(settings)
    app.state.database.upgrade()  # before its lifespan: written to first
    import_content(bank_dir, app.state.database)
    with TestClient(app, follow_redirects=False, headers={"Accept-Language": "en"}) as client:
        yield client


def restore(client, text: str):
    return client.post(
        "/backup/restore", files={"file": ("backup.json", text.encode(), "application/json")}
    )
