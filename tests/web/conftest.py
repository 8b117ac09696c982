"""Web fixtures: a small bank imported into a fresh SQLite file, the app over it, and a clock."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import col, select

from app.accounts import learners
from app.accounts.settings import LearnerSettings
from app.config import Settings
from app.content.bank.sync import import_content
from app.infra.db import Database
from app.infra.models import CardState, Learner, PracticeSession, ReviewLog
from app.study import get_learner
from app.web.deps import get_now
from tests.support import apps
from tests.support.banks import commit
from tests.support.templates import Templates

KERNELS_DECK = """
---
title: 算子与性能
slug: kernels
description: GEMM、roofline 与显存
tags: [gpu, kernels]
language: zh
style: question
---

本组收录 GEMM 与 roofline 的面试题。

## GPU 基础

### Q：为什么 GEMM 是核心？ {#gemm-core}

**面试回答。** 矩阵乘 $C = AB$ 占了绝大部分计算；算子融合可以减少显存读写。

**追问展开。** 追问 tiling 与 shared memory 复用。

**易错点 / 边界。** GEMM 快不等于端到端快。

**继续读。** 线性层与 GEMM / [[算子融合]]

### Q：Roofline 模型怎么读？ {#roofline}

**面试回答。** 算术强度 $I=\\frac{\\text{FLOPs}}{\\text{Bytes}}$ 决定 kernel 落在拐点哪一侧。

**继续读。** Kernel Cost Model

## 推理

### Q：KV cache 占多少显存？ {#kv-cache}

**面试回答。** 每个 token 每层存 K 和 V 两份，显存随序列长度线性增长。

**继续读。** [FlashAttention 论文](https://arxiv.org/abs/2205.14135) / 不存在的主题
"""

NOTES_DECK = """
---
title: Interview Notes
slug: notes
description: Numbered notes in English.
tags: [notes]
language: en
style: numbered
---

Notes kept while preparing.

## 1. What is Kernel Fusion? {#fusion}

**Answer.** Fusion merges several kernels into one, so intermediates never leave the chip
(算子融合).

**Follow-ups.** Which ops cannot be fused?

**Continue reading.** Operator Fusion

## 2. How does PagedAttention work? {#paged}

**Answer.** It stores the KV cache in fixed-size blocks, like virtual memory pages.

**Pitfalls.** Block size trades fragmentation against lookup cost.
"""

TOPICS = {
    "topics/linear-gemm.md": """
        ---
        title: 线性层与 GEMM
        summary: 线性层都是矩阵乘。
        ---

        线性层 $y = Wx + b$ 就是一次 GEMM，另见 [[Kernel Cost Model]]。
    """,
    "topics/fusion.md": """
        ---
        title: 算子融合
        aliases: [Operator Fusion]
        summary: 把多个 kernel 合成一个，省掉中间结果的显存往返。
        ---

        算子融合（kernel fusion）减少显存读写；常见的是 GEMM + bias + activation。
    """,
    "topics/kernel-cost-model.md": """
        ---
        title: Kernel Cost Model
        summary: Estimating kernel time from bytes and FLOPs.
        ---

        A kernel costs at least max(FLOPs / peak, bytes / bandwidth).
    """,
}

# A Monday afternoon in UTC, far from any day boundary for a UTC learner (rollover at 04:00).
START = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


@pytest.fixture
def bank_dir(write_content: Callable[[dict[str, str]], Path]) -> Path:
    """Two decks (question and numbered style) and three topics.

    Content order (deck path, then position): gemm-core, roofline, kv-cache | fusion, paged.
    """
    return write_content(
        {"decks/a-kernels.md": KERNELS_DECK, "decks/b-notes.md": NOTES_DECK, **TOPICS}
    )


@pytest.fixture
def app(database_url: str, bank_dir: Path, templates: Templates) -> Iterator[FastAPI]:
    """The app over a fresh database (SQLite or PostgreSQL) holding the imported bank."""
    copied = templates.bank(database_url, bank_dir)
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=database_url,
        content_dir=bank_dir,
        learner_name="local",
        timezone="UTC",
    )
    app = apps.take(settings)
    app.state.database.upgrade()  # before its lifespan: written to first
    if not copied:
        import_content(bank_dir, app.state.database)
    yield app
    apps.give_back(app)


@dataclass
class Clock:
    """The time every request sees; tests move it forward through minutes and days."""

    now: datetime

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def set_local(self, text: str, zone: str) -> datetime:
        """Jump to a wall-clock time (`2025-03-11 03:50`) in `zone`; requests still see UTC."""
        local = datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone))
        self.now = local.astimezone(UTC)
        return self.now


@pytest.fixture
def clock(app: FastAPI) -> Clock:
    clock = Clock(START)
    app.dependency_overrides[get_now] = lambda: clock.now
    return clock


@pytest.fixture
def client(app: FastAPI, clock: Clock) -> Iterator[TestClient]:
    """An English-speaking browser that does not follow redirects, so 303s can be asserted."""
    with TestClient(app, follow_redirects=False, headers={"Accept-Language": "en"}) as client:
        yield client


class Bank:
    """Direct reads and small factories over the app's database, one short session each."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.engine = database.engine

    def learner(self, name: str = "local") -> Learner:
        with self.database.session() as session:
            return get_learner(session, name)

    def state(self, card_id: str, learner: str = "local") -> CardState | None:
        with self.database.session() as session:
            return session.get(CardState, (self.learner(learner).id, card_id))

    def states(self) -> list[CardState]:
        with self.database.session() as session:
            return list(session.exec(select(CardState)))

    def logs(self) -> list[ReviewLog]:
        with self.database.session() as session:
            return list(session.exec(select(ReviewLog).order_by(col(ReviewLog.id))))

    def configure(self, learner: str = "local", **changes: Any) -> Learner:
        """Change some study settings through app.accounts.learners.update_settings."""
        with self.database.session() as session:
            row = get_learner(session, learner)
            values = LearnerSettings.of(row).columns() | changes
            settings = LearnerSettings.model_validate(values)
            return learners.update_settings(
                session, learner=row, settings=settings, database=self.database
            )

    def make_learner(self, name: str, **fields: Any) -> Learner:
        with self.database.session() as session:
            row = Learner(name=name, **fields)
            session.add(row)
            commit(session)
            session.refresh(row)
            return row

    def make_practice(self, learner: Learner, card_ids: list[str]) -> PracticeSession:
        with self.database.session() as session:
            run = PracticeSession(learner_id=learner.id, card_ids=card_ids, started_at=START)
            session.add(run)
            commit(session)
            session.refresh(run)
            return run


@pytest.fixture
def bank(app: FastAPI) -> Bank:
    return Bank(app.state.database)


# Reading pages: the few elements tests look at by id.

VOID_TAGS = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass
class Element:
    attrs: dict[str, str | None]
    text: str  # all text inside, whitespace collapsed

    @property
    def hidden(self) -> bool:
        return "hidden" in self.attrs


class _Finder(HTMLParser):
    def __init__(self, element_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.element_id = element_id
        self.attrs: dict[str, str | None] | None = None
        self.depth = 0  # open elements inside the one found, itself included
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        opens = 0 if tag in VOID_TAGS else 1
        if self.depth:
            self.depth += opens
        elif self.attrs is None and dict(attrs).get("id") == self.element_id:
            self.attrs = dict(attrs)
            self.depth = opens

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.depth and self.attrs is None and dict(attrs).get("id") == self.element_id:
            self.attrs = dict(attrs)

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag not in VOID_TAGS:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.text.append(data)


def element(page: str, element_id: str) -> Element | None:
    """The element with `element_id` in `page`, or None."""
    finder = _Finder(element_id)
    finder.feed(page)
    if finder.attrs is None:
        return None
    return Element(finder.attrs, " ".join("".join(finder.text).split()))


@pytest.fixture
def find() -> Callable[[str, str], Element | None]:
    """`find(html, id)`: the element with that id, for assertions on hidden parts and text."""
    return element
