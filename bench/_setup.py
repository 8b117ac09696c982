"""Benchmark set-up: the synthetic bank imported, and learners with a past of study.

    schema, url = postgres_schema(base_url)      # PostgreSQL: a schema of its own, dropped after
    timings, tokens, queues = prepare(url, content, learners=32, days=10, seed=0)
    tokens, queues = add_learners(url, learners=8, days=120, today=200, seed=0, prefix="long")

`prepare` imports the bank, then creates one team-mode account per learner with a personal
API token and gives each a review history through `app.study.record_review` at past times:
`days` of sessions (due cards, then new cards in content order, learning steps repeated within
the session), the last one 40 minutes ago, so that learning, review and new cards are all due.
`today`: that last session goes on until it has given this many ratings (new cards as needed).
Daily limits are lifted (new and reviews 9999) so that no learner runs dry mid-run.
"""

import random
import time
import uuid
from datetime import UTC, datetime, timedelta
from heapq import heappop, heappush
from pathlib import Path
from typing import Any

RATINGS = (1, 2, 3, 4)
RATING_WEIGHTS = (0.10, 0.15, 0.60, 0.15)  # Again, Hard, Good, Easy
PASSWORD = "bench-password-1"


def postgres_schema(url: str) -> tuple[str, str]:
    """Create a dedicated schema; return it and the URL whose search_path points at it."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    schema = f"serve_bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, poolclass=NullPool)
    with admin.begin() as connection:
        connection.exec_driver_sql(f"CREATE SCHEMA {schema}")
    admin.dispose()
    joiner = "&" if "?" in url else "?"
    return schema, f"{url}{joiner}options=-csearch_path%3D{schema}"


def drop_schema(url: str, schema: str) -> None:
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    admin = create_engine(url, poolclass=NullPool)
    with admin.begin() as connection:
        connection.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    admin.dispose()


def _content_order(session: Any) -> list[str]:
    from sqlmodel import col, select

    from app.infra.models import Card, Deck

    query = (
        select(Card.id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(col(Card.retired).is_(False), col(Deck.retired).is_(False))
        .order_by(col(Deck.path), col(Card.position))
    )
    return list(session.exec(query))


def _simulate_history(
    database: Any,
    session: Any,
    learner: Any,
    order: list[str],
    now: datetime,
    days: int,
    seed: int,
    today: int = 0,
) -> int:
    """Past study sessions through record_review; returns how many ratings were given."""
    from app.study import record_review

    rng = random.Random(seed)
    due: dict[str, datetime] = {}
    next_new = 0
    given = 0
    # One session a day at a varying hour, then a short one 40 minutes ago.
    starts = [
        now - timedelta(days=d) + timedelta(hours=rng.uniform(-3, 3)) for d in range(days, 0, -1)
    ]
    starts.append(now - timedelta(minutes=40))
    for index, start in enumerate(starts):
        last = index == len(starts) - 1
        length = timedelta(minutes=28 if last else 45)
        new_today = (today or 6) if last else rng.randint(8, 12)
        given_before = given
        queue = sorted((c for c, d in due.items() if d <= start), key=due.__getitem__)
        queue += order[next_new : next_new + new_today]
        next_new += new_today
        later: list[tuple[datetime, str]] = []  # learning steps coming up within the session
        t = start
        while queue or later:
            if last and today and given - given_before >= today:
                break
            if later and (later[0][0] <= t or not queue):
                when, card_id = heappop(later)
                if when > start + length:
                    break
                t = max(t, when)
            else:
                card_id = queue.pop(0)
            rating = rng.choices(RATINGS, RATING_WEIGHTS)[0]
            result = record_review(
                session,
                learner=learner,
                card_id=card_id,
                rating=rating,
                now=t,
                duration_ms=rng.randrange(3_000, 30_000),
                database=database,
            )
            given += 1
            due[card_id] = result.due
            if result.due <= start + length:
                heappush(later, (result.due, card_id))
            # Today's many ratings all fit between 40 minutes ago and now.
            pace = 30 / today if last and today else 1
            t += timedelta(seconds=rng.uniform(5, 25) * min(pace, 1))
    return given


def prepare(
    url: str, content: Path, learners: int, days: int, seed: int, setup_sql: list[str]
) -> tuple[dict[str, float], list[str], list[dict[str, int]]]:
    """Import the bank, create the accounts with their histories; return timings and tokens."""
    from app.content.bank.sync import import_content
    from app.infra.db import Database, make_engine

    engine = make_engine(url)
    if engine.dialect.name == "postgresql":
        from sqlalchemy import event

        @event.listens_for(engine, "connect")
        def _no_fsync(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
            # Only this set-up process's connections: tens of thousands of history commits.
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SET synchronous_commit TO OFF")
            dbapi_connection.commit()

    database = Database(engine)
    database.upgrade()
    timings: dict[str, float] = {}
    start = time.perf_counter()
    report = import_content(content, database)
    timings["import"] = time.perf_counter() - start
    timings["cards"] = report.added

    start = time.perf_counter()
    tokens, queues, reviews = _learners(database, learners, days, seed)
    timings["history"] = time.perf_counter() - start
    timings["reviews"] = reviews
    with database.session() as session, database.writing(session) as connection:
        for statement in setup_sql:
            connection.exec_driver_sql(statement)
    if engine.dialect.name == "postgresql":
        # What autovacuum would do within a minute of the import: planner statistics and the
        # visibility map, so that the run does not start on an unanalysed database.
        from sqlmodel import SQLModel

        tables = ", ".join(SQLModel.metadata.tables)  # this schema's tables (search_path)
        with engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                f"VACUUM ANALYZE {tables}"
            )
    engine.dispose()
    return timings, tokens, queues


def add_learners(
    url: str, learners: int, days: int, seed: int, *, today: int = 0, prefix: str = "bench"
) -> tuple[list[str], list[dict[str, int]]]:
    """More accounts with their histories in a prepared bank; their tokens and queues."""
    from app.infra.db import Database

    database = Database.open(url)
    try:
        tokens, queues, _ = _learners(database, learners, days, seed, today=today, prefix=prefix)
    finally:
        database.dispose()
    return tokens, queues


def _learners(
    database: Any, learners: int, days: int, seed: int, *, today: int = 0, prefix: str = "bench"
) -> tuple[list[str], list[dict[str, int]], int]:
    from app.accounts import members
    from app.accounts.learners import update_settings
    from app.accounts.settings import LearnerSettings
    from app.study import Filters, counts

    now = datetime.now(UTC)
    tokens: list[str] = []
    queues: list[dict[str, int]] = []
    reviews = 0
    with database.session() as session:
        order = _content_order(session)
        for i in range(learners):
            name = f"{prefix}-{i:03d}"
            learner = members.create_user(session, name=name, password=PASSWORD, database=database)
            # Unlimited for the run: a learner whose queue ran dry would time 204s, not cycles.
            update_settings(
                session,
                learner=learner,
                settings=LearnerSettings(
                    desired_retention=0.9,
                    new_per_day=9999,
                    max_reviews_per_day=9999,
                    rollover_hour=4,
                    timezone="UTC",
                ),
                database=database,
            )
            reviews += _simulate_history(
                database, session, learner, order, now, days, seed * 1000 + i, today=today
            )
            tokens.append(
                members.create_api_token(
                    session, learner=learner, name="bench", now=now, database=database
                )
            )
            left = counts(session, learner=learner, now=datetime.now(UTC), filters=Filters())
            queues.append({"learning": left.learning, "review": left.review, "new": left.new})
    return tokens, queues, reviews
