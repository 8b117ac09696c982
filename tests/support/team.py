"""Helpers for the team-mode tests: accounts, a clock, browsers that sign in, page readers."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx2
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel, col, select

from app.accounts import members
from app.config import Settings
from app.infra.db import Database
from app.infra.models import AuthSession, Learner, ReviewLog

SECRET = "team-test-secret-" + "x" * 32
START = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)  # a Monday noon, far from any day boundary
PASSWORDS = {"admin": "admin-password-1", "member": "member-password-1", "other": "other-pass-1"}
NEW_PASSWORD = "a-new-password-1"
PRODUCTION_HASHER = members._hasher  # before the team conftest's fast_hashing swaps in a cheap one

GPU_DECK = """
---
title: GPU Basics
slug: gpu
description: Kernels and memory.
tags: [gpu]
language: en
style: numbered
---

## 1. What is a kernel? {#kernel}

**Answer.** A function that runs on the GPU, once per thread.

**Continue reading.** Kernel Fusion

## 2. What is kernel fusion? {#fusion}

**Answer.** Merging kernels so that intermediates never leave the chip.

## 3. What limits a GEMM? {#gemm}

**Answer.** Compute when the arithmetic intensity is high, bandwidth when it is low.
"""

NOTES_DECK = """
---
title: Interview Notes
slug: notes
description: Notes kept while preparing.
tags: [notes]
language: en
style: numbered
---

## 1. How does PagedAttention work? {#paged}

**Answer.** It stores the KV cache in fixed-size blocks, like virtual memory pages.

## 2. What is a KV cache? {#kv}

**Answer.** The keys and values of earlier tokens, kept so they are not recomputed.
"""

FUSION_TOPIC = """
---
title: Kernel Fusion
summary: Several kernels as one.
---

Fusion saves round trips to memory.
"""

BANK = {
    "decks/a-gpu.md": GPU_DECK,
    "decks/b-notes.md": NOTES_DECK,
    "topics/fusion.md": FUSION_TOPIC,
}


@dataclass
class Clock:
    """The time every request of every app sees; tests move it forward."""

    now: datetime = START

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


def team_settings(database_url: str, content_dir: Path, **overrides: Any) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=database_url,
        content_dir=content_dir,
        mode="team",
        secret_key=SECRET,
        timezone="UTC",
        **overrides,
    )


def same_database(url: str) -> str:
    """Another URL for the same database, so a second app opens its own engine (a "process")."""
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        return f"sqlite:///{path.parent}/./{path.name}"
    return url + ("&" if "?" in url else "?") + "application_name=qbank-second"


# Reading pages.


class _Inputs(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.values: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "input" and found.get("name"):
            self.values.setdefault(found["name"] or "", []).append(found.get("value") or "")


def csrf_token(page: str) -> str | None:
    """The value of the page's hidden csrf_token inputs (every form carries the same one)."""
    parser = _Inputs()
    parser.feed(page)
    values = set(parser.values.get("csrf_token", []))
    assert len(values) <= 1, f"several CSRF tokens on one page: {values}"
    return values.pop() if values else None


# Browsers.


@dataclass
class Browser:
    """A TestClient that signs in, keeps its session's CSRF token and sends it when asked."""

    client: TestClient
    csrf: str | None = None

    def sign_in(self, name: str, password: str | None = None) -> None:
        response = self.login(name, password)
        assert response.status_code == 303, response.text
        self.refresh_csrf()

    def login(self, name: str, password: str | None = None, **data: str) -> httpx2.Response:
        form = {"name": name, "password": password or PASSWORDS[name], **data}
        return self.client.post("/login", data=form)

    def refresh_csrf(self) -> str:
        page = self.client.get("/account")
        assert page.status_code == 200, f"not signed in: {page.status_code}"
        token = csrf_token(page.text)
        assert token, "the account page has no CSRF token"
        self.csrf = token
        return token

    @property
    def cookie(self) -> str | None:
        return self.client.cookies.get("qbank_session")

    def get(self, url: str, **kwargs: Any) -> httpx2.Response:
        return self.client.get(url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx2.Response:
        """A raw POST: no CSRF token added."""
        return self.client.post(url, **kwargs)

    def submit(
        self, url: str, data: dict[str, Any] | None = None, **kwargs: Any
    ) -> httpx2.Response:
        """A form POST carrying the session's CSRF token, as the pages' forms do."""
        return self.client.post(url, data={**(data or {}), "csrf_token": self.csrf}, **kwargs)

    def post_json(self, url: str, body: Any = None, **kwargs: Any) -> httpx2.Response:
        """A JSON POST carrying the CSRF token in X-CSRF-Token, as a page's script would."""
        headers = {"X-CSRF-Token": self.csrf or "", **kwargs.pop("headers", {})}
        return self.client.post(url, json=body, headers=headers, **kwargs)


# Reading the database.


@dataclass
class Db:
    """Short read-only looks at the app's database."""

    database: Database

    @property
    def engine(self) -> Engine:
        return self.database.engine

    def learner(self, name: str) -> Learner:
        with self.database.session() as session:
            return session.exec(select(Learner).where(Learner.name == name)).one()

    def count(self, model: type[SQLModel], **where: Any) -> int:
        query = select(func.count()).select_from(model)
        for key, value in where.items():
            query = query.where(col(getattr(model, key)) == value)
        with self.database.session() as session:
            return session.exec(query).one()

    def sessions(self, name: str) -> int:
        return self.count(AuthSession, learner_id=self.learner(name).id)

    def reviews(self, name: str) -> list[ReviewLog]:
        query = select(ReviewLog).where(ReviewLog.learner_id == self.learner(name).id)
        with self.database.session() as session:
            return list(session.exec(query.order_by(col(ReviewLog.id))))
