"""A server killed with SIGKILL in the middle of a burst of reviews keeps all it acknowledged."""

import itertools
import random
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from sqlmodel import Session, col, select

from app.infra.db import make_engine
from app.infra.models import CardState, ReviewLog
from tests.support import http

pytestmark = pytest.mark.storage

STATE_NAMES = {1: "learning", 2: "review", 3: "relearning"}


def _state_json(row):  # type: ignore[no-untyped-def]
    """A card state row in the review log's JSON form (None for no row)."""
    from app.scheduling.cardstate import CardStateValue
    from app.scheduling.statedoc import log_json

    return log_json(CardStateValue.from_row(row)) if row is not None else None


class Burst:
    """Clients that study as fast as they can, keeping every review the server acknowledged."""

    def __init__(self) -> None:
        self.acknowledged: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __len__(self) -> int:
        with self.lock:
            return len(self.acknowledged)

    def run(self, url: str) -> None:
        """Show the next card and rate it, until the server goes away."""
        # Again and Hard keep every card in its learning steps, so there is always one to study.
        ratings = itertools.cycle((1, 2))
        with http.client(url, timeout=10) as client:
            while True:
                try:
                    shown = client.get("/api/study/next")
                    assert shown.status_code == 200, shown.text
                    card = shown.json()
                    review = {
                        "card_id": card["id"],
                        "rating": next(ratings),
                        "version": card["version"],
                    }
                    answer = client.post("/api/reviews", json=review)
                except httpx.TransportError:
                    return  # killed
                if answer.status_code == 200:
                    with self.lock:
                        self.acknowledged.append(answer.json())
                else:  # another client rated the same card first
                    assert answer.status_code == 409, answer.text


def when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A state (as logged, or as the API answered) with its times parsed, for comparison."""
    return {
        "state": STATE_NAMES.get(state["state"], state["state"]),
        "due": when(state["due"]),
        "stability": state["stability"],
        "difficulty": state["difficulty"],
        "reps": state["reps"],
        "lapses": state["lapses"],
    }


def assert_nothing_acknowledged_was_lost(
    database_url: str, acknowledged: list[dict[str, Any]]
) -> None:
    """Read the database directly, as it was left by the kill."""
    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            logs = session.exec(select(ReviewLog).order_by(col(ReviewLog.id))).all()
            states = {s.card_id: s for s in session.exec(select(CardState))}
    finally:
        engine.dispose()

    # The database is consistent: each card's log is an unbroken chain ending in its state.
    chains: dict[str, list[ReviewLog]] = defaultdict(list)
    for log in logs:
        assert (log.mode, log.undone_at) == ("study", None)
        chains[log.card_id].append(log)
    assert set(chains) == set(states), "a card state without its log entries, or the reverse"
    for card_id, chain in chains.items():
        state = states[card_id]
        assert state.reps == state.version == len(chain), card_id
        assert chain[0].state_before is None
        for before, after in pairwise(chain):
            assert after.state_before == before.state_after, card_id
        assert chain[-1].state_after is not None
        assert comparable(chain[-1].state_after) == comparable(_state_json(state) or {})

    # Every acknowledged review is in the log, with the state the server answered.
    logged = {(log.card_id, (log.state_after or {})["reps"]): log for log in logs}
    for answer in acknowledged:
        log = logged.get((answer["card_id"], answer["reps"]))
        assert log is not None, f"acknowledged review lost: {answer}"
        assert comparable(log.state_after or {}) == comparable(answer)

    # Each card is at its last acknowledged state, or past it by reviews committed but not
    # acknowledged before the kill (those are in the log, so the chain above covers them).
    last: dict[str, dict[str, Any]] = {}
    for answer in acknowledged:
        if answer["version"] > last.get(answer["card_id"], {"version": 0})["version"]:
            last[answer["card_id"]] = answer
    for card_id, answer in last.items():
        assert states[card_id].version >= answer["version"]
        if states[card_id].version == answer["version"]:
            assert comparable(chains[card_id][-1].state_after or {}) == comparable(answer)


def kill_mid_burst(
    database_url: str,
    drill_dir: Path,
    live_server: Callable[..., Any],
    *,
    workers: int,
    rounds: int,
) -> list[dict[str, Any]]:
    """Start, burst, SIGKILL, `rounds` times over one database; return the acknowledged reviews."""
    burst = Burst()
    for _ in range(rounds):
        server = live_server(database_url, drill_dir, workers=workers)
        target = len(burst) + random.randint(30, 60)
        with ThreadPoolExecutor(workers) as pool:
            clients = [pool.submit(burst.run, server.url) for _ in range(workers)]
            # A bound for a server that stopped answering, not a speed to meet: a loaded
            # machine may take many seconds for the first reviews.
            deadline = time.monotonic() + 180
            while len(burst) < target and time.monotonic() < deadline:
                done, _ = wait(clients, timeout=0.005)
                if done:
                    break  # a client stopped early: its error is raised below
            # Land the kill anywhere in a request, not just after an acknowledgement.
            time.sleep(random.uniform(0, 0.05))
            running = not any(c.done() for c in clients)
            server.kill()
            for client in clients:
                client.result(timeout=20)
        assert running, f"the burst was over before the kill:\n{server.output()}"
        assert len(burst) >= target, "the server stopped acknowledging reviews"
    return burst.acknowledged


@pytest.mark.slow
def test_sigkill_mid_burst_loses_no_acknowledged_review(
    database_url: str, drill_dir: Path, live_server: Callable[..., Any]
) -> None:
    # Twice: the second server starts on the database as the first one's kill left it.
    acknowledged = kill_mid_burst(database_url, drill_dir, live_server, workers=1, rounds=2)
    assert_nothing_acknowledged_was_lost(database_url, acknowledged)


@pytest.mark.slow
def test_sigkill_of_two_workers_mid_burst_loses_no_acknowledged_review(
    database_url: str, drill_dir: Path, live_server: Callable[..., Any]
) -> None:
    """`--workers 2` and two clients racing for the same cards (so some answers are 409)."""
    acknowledged = kill_mid_burst(database_url, drill_dir, live_server, workers=2, rounds=1)
    assert_nothing_acknowledged_was_lost(database_url, acknowledged)
