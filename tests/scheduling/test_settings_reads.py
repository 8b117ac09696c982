"""What a view of the settings page reads: aggregates of the review log, never its rows."""

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlmodel import Session

from app.config import Settings
from app.infra.db import Database, database_of
from app.infra.models import Learner
from app.main import create_app
from app.practice.quiz import rate_practice, start_practice
from app.scheduling.fitting import fsrs_items
from app.scheduling.optimize import counted_reviews, study_reviews
from app.study import Filters, get_learner, record_review, undo_last
from tests.support import cards
from tests.support.pages import text_of

pytestmark = pytest.mark.storage

AGGREGATES = ("count(", "min(", "max(", "sum(", "coalesce(")


def _top_level(sql: str) -> list[tuple[int, str]]:
    """Each character of `sql` outside parentheses, with its position."""
    depth, out = 0, []
    for at, char in enumerate(sql):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0:
            out.append((at, char))
    return out


def select_list(sql: str) -> list[str]:
    """The columns of the statement's outermost SELECT (after any WITH … AS (…))."""
    sql = " ".join(sql.split())
    flat = "".join(char for _, char in _top_level(sql))
    positions = [at for at, _ in _top_level(sql)]
    start = flat.upper().index("SELECT ") + len("SELECT ")
    end = flat.upper().index(" FROM ", start)
    columns = sql[positions[start] : positions[end]]
    items, depth, current = [], 0, ""
    for char in columns:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += char
    return [*items, current.strip()]


def test_the_select_list_helper_sees_only_the_outermost_columns() -> None:
    sql = (
        "WITH d(a, b) AS (VALUES (?, ?)) SELECT count(*) AS n, max(x) FROM "
        "(SELECT DISTINCT r.card_id, d.a FROM r JOIN d ON r.t >= d.a) AS s"
    )
    assert select_list(sql) == ["count(*) AS n", "max(x)"]
    assert select_list("SELECT r.rating, r.at FROM r") == ["r.rating", "r.at"]


START = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def make_cards(session: Session, count: int) -> list[str]:
    return cards.make_cards(session, count, slug="reads", prefix="reads-")


def study_log(session: Session, learner: Learner, cards: list[str], days: int) -> None:
    """Ratings across a change of summer time, some an hour either side of the rollover."""
    database = database_of(session)
    for day in range(days):
        for n, card in enumerate(cards):
            # Around 04:00 New York time: 08:00 or 09:00 UTC depending on summer time.
            at = START + timedelta(days=day, hours=-2 + (n * 37 + day * 11) % 5, minutes=n)
            if (n + day) % 3:
                record_review(
                    session, learner=learner, card_id=card, rating=3, now=at, database=database
                )
    undo_last(session, learner=learner, now=START + timedelta(days=days), database=database)
    run = start_practice(
        session,
        learner=learner,
        filters=Filters(),
        order="content",
        seconds_per_card=0,
        now=START + timedelta(days=days),
        database=database,
    )
    rate_practice(
        session,
        learner=learner,
        run=run,
        card_id=cards[0],
        rating=1,
        now=START + timedelta(days=days),
        database=database,
    )


def test_the_database_counts_what_the_fit_would_learn_from(session: Session, make_learner) -> None:
    learner = make_learner(timezone="America/New_York", rollover_hour=4)
    cards = make_cards(session, 12)
    study_log(session, learner, cards, days=20)  # 2025-03-09: New York moves to summer time
    expected = len(fsrs_items(study_reviews(session, learner)))
    assert expected > 50
    assert counted_reviews(session, learner) == expected
    # Another zone puts some ratings on other days: the count follows it.
    learner.timezone, learner.rollover_hour = "Asia/Shanghai", 0
    assert counted_reviews(session, learner) == len(fsrs_items(study_reviews(session, learner)))


def test_nothing_to_count_in_an_empty_log_or_a_single_day(
    session: Session, database: Database, make_learner
) -> None:
    learner = make_learner()
    assert counted_reviews(session, learner) == 0
    cards = make_cards(session, 2)
    for card in cards:
        record_review(
            session, learner=learner, card_id=card, rating=3, now=START, database=database
        )
        record_review(
            session, learner=learner, card_id=card, rating=3, now=START, database=database
        )
    assert counted_reviews(session, learner) == 0


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), headers={"Accept-Language": "en"}) as client:
        yield client


def test_a_view_of_the_settings_page_reads_no_review_rows(
    settings_database, settings: Settings, client: TestClient
) -> None:
    database = settings_database
    with database.session() as session:
        learner = get_learner(session, settings.learner_name, settings.timezone)
        cards = make_cards(session, 30)
        study_log(session, learner, cards, days=12)
        counted = len(fsrs_items(study_reviews(session, learner)))

    statements: list[str] = []

    def record(conn, cursor, statement, parameters, context, executemany) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    app_engine = client.app.state.database.engine  # type: ignore[attr-defined]
    event.listen(app_engine, "before_cursor_execute", record)
    try:
        page = client.get("/settings").text
        first = list(statements)
        statements.clear()
        again = client.get("/settings").text
    finally:
        event.remove(app_engine, "before_cursor_execute", record)

    # The page says what it said when it read the whole log.
    assert text_of(page, "optimize-reason") == f"Ready: {counted} reviews to learn from."
    assert text_of(again, "optimize-reason") == text_of(page, "optimize-reason")
    assert text_of(again, "workload-advice") == text_of(page, "workload-advice")

    on_log = [sql for sql in first if re.search(r"\bFROM reviewlog\b", sql)]
    assert on_log, "the page counts the log"
    for sql in on_log:
        columns = select_list(sql)
        assert columns, sql
        assert all(column.lower().startswith(AGGREGATES) for column in columns), sql
    # The curve is simulated once; the second view reads no card states to simulate again.
    reads_states = [sql for sql in first if "SELECT cardstate.stability" in sql]
    assert len(reads_states) == 1
    assert not [sql for sql in statements if "SELECT cardstate.stability" in sql]
    assert len(statements) < len(first)


def test_a_rating_moves_the_curve_on(
    settings_database, settings: Settings, client: TestClient
) -> None:
    database = settings_database
    with database.session() as session:
        make_cards(session, 40)
    before = client.get("/api/simulate").json()
    assert client.get("/api/simulate").json() == before
    with database.session() as session:
        learner = get_learner(session, settings.learner_name, settings.timezone)
        for n in range(20):
            at = datetime.now(UTC) - timedelta(days=3)
            record_review(
                session,
                learner=learner,
                card_id=f"reads-{n:03d}",
                rating=3,
                now=at,
                database=database,
            )
    after = client.get("/api/simulate").json()
    assert (before["seen"], after["seen"]) == (0, 20)
    assert after["points"] != before["points"]
