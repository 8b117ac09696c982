"""Shared test helpers (from test_backup.py)."""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlmodel import SQLModel

from app.backup import (
    dump_backup,
    export_learner,
    restore_learner,
)
from app.config import Settings
from app.content.bank.sync import import_content
from app.infra.db import Database
from app.practice.quiz import rate_practice, start_practice
from app.study import Filters, get_learner, next_card, record_review, undo_last
from tests.support import apps
from tests.support.banks import commit

DECK = r"""
---
title: GPU 基础
tags: [gpu]
---

## 计算

### Q：为什么 GEMM 是核心？ {#gemm-core}

**面试回答。** 计算量 $F=2mnk$。

### Q：Roofline 怎么读？ {#roofline}

**面试回答。** $P=\min(\pi, \beta I)$。

## 内存

### Q：HBM 带宽多大？ {#hbm}

**面试回答。** 约 3 TB/s。

### Q：什么是 bank conflict？ {#bank-conflict}

**面试回答。** 同一 bank 的不同地址被同时访问。
"""


START = datetime(2025, 3, 3, 1, 0, tzinfo=UTC)


RATINGS = [3, 1, 4, 3, 2, 3, 3, 1]


CONTENT = {"decks/gpu.md": DECK}


def simulate_week(database: Database, name: str = "local") -> None:
    """A week of study (every due card, ratings cycling), one undo and a practice run."""
    with database.session() as session:
        learner = get_learner(session, name)
        learner.timezone = "Asia/Shanghai"
        learner.desired_retention = 0.85
        session.add(learner)
        commit(session)
        turn = 0
        for day in range(7):
            now = START + timedelta(days=day)
            while (due := next_card(session, learner=learner, now=now, filters=Filters())) and (
                turn < 200
            ):
                rating = RATINGS[turn % len(RATINGS)]
                record_review(
                    session,
                    learner=learner,
                    card_id=due.card.id,
                    rating=rating,
                    now=now,
                    duration_ms=1000 + turn,
                    database=database,
                )
                turn += 1
                now += timedelta(minutes=11)
        undo_last(session, learner=learner, now=now, database=database)
        run = start_practice(
            session,
            learner=learner,
            filters=Filters(deck="gpu"),
            order="content",
            seconds_per_card=60,
            now=now,
            database=database,
        )
        for card_id, rating in zip(run.card_ids[:2], (1, 3), strict=True):
            now += timedelta(seconds=40)
            rate_practice(
                session,
                learner=learner,
                run=run,
                card_id=card_id,
                rating=rating,
                now=now,
                database=database,
            )


def fresh_engine(path: Path) -> Database:
    database = Database.open(f"sqlite:///{path}")
    database.upgrade()
    return database


def backup(database: Database, name: str = "local") -> dict[str, Any]:
    """A backup as it travels: through JSON text."""
    with database.session() as session:
        learner = get_learner(session, name)
        return json.loads(dump_backup(export_learner(session=session, learner=learner)))


def restore(database: Database, data: Any, name: str = "local") -> Any:
    with database.session() as session:
        return restore_learner(
            session=session, learner=get_learner(session, name), data=data, database=database
        )


def dump(database: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in a stable order."""
    with database.engine.connect() as conn:
        return {
            table.name: sorted((tuple(row) for row in conn.execute(table.select())), key=repr)
            for table in SQLModel.metadata.sorted_tables
        }


def _with(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    copy = json.loads(json.dumps(data))
    target = copy
    *parents, last = path.split(".")
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return copy


@contextmanager
def make_client(url: str, content: Path) -> Iterator[TestClient]:
    """A started client of the app over `content` imported into the database at `url`."""
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=url,
        content_dir=content,
    )
    app = apps.take(settings)
    app.state.database.upgrade()  # before its lifespan: written to first
    import_content(content, app.state.database)
    with TestClient(app, headers={"Accept-Language": "en"}) as client:
        yield client
    app.state.database.engine.dispose()
    apps.give_back(app)
