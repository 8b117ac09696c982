"""Background jobs: one unfinished job per kind and learner, status in the row and the API."""

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.config import Settings
from app.infra.db import Database
from app.infra.jobs import (
    FAILED,
    active_job,
    get_job,
    latest_job,
    run_job,
    start_job,
    wait_for_job,
)
from app.infra.models import Job, Learner
from app.main import create_app
from app.scheduling.fitting import FitRefused
from app.study import get_learner
from tests.support.banks import commit

pytestmark = pytest.mark.storage

# Generous: a job here finishes in milliseconds; the limit only keeps a broken test from hanging.
LIMIT = 60


def finished(database: Database, job_id: int | None) -> Job:
    assert job_id is not None
    wait_for_job(database, job_id, LIMIT)
    with database.session() as session:
        job = session.get(Job, job_id)
        assert job is not None
        return job


def test_a_second_start_while_one_runs_returns_the_running_job(
    database, engine: Engine, make_learner
) -> None:
    learner: Learner = make_learner()
    other: Learner = make_learner()
    release = threading.Event()
    calls: list[int] = []

    def work(session: Session, job: Job) -> tuple[str, dict | None]:
        calls.append(job.learner_id or 0)
        assert release.wait(LIMIT)
        return "fitted", {"loss": 0.25}

    first = start_job(database, kind="optimize", learner_id=learner.id, work=work)
    again = start_job(database, kind="optimize", learner_id=learner.id, work=work)
    theirs = start_job(database, kind="optimize", learner_id=other.id, work=work)
    import_job = start_job(database, kind="import", learner_id=learner.id, work=work)
    assert again.id == first.id
    assert len({first.id, theirs.id, import_job.id}) == 3
    with database.session() as session:
        running = active_job(session, kind="optimize", learner_id=learner.id)
        assert running is not None and running.id == first.id
        assert running.status in ("queued", "running")

    release.set()
    done = finished(database, first.id)
    for job in (theirs, import_job):
        finished(database, job.id)
    assert (done.status, done.message, done.result, done.active_key) == (
        "done",
        "fitted",
        {"loss": 0.25},
        None,
    )
    assert done.started_at is not None and done.finished_at is not None
    assert sorted(calls) == sorted([learner.id, other.id, learner.id])

    # Finished, it no longer blocks: the next start is a new job.
    release.set()
    later = start_job(database, kind="optimize", learner_id=learner.id, work=work)
    assert later.id != first.id
    assert finished(database, later.id).status == "done"
    with database.session() as session:
        newest = latest_job(session, kind="optimize", learner_id=learner.id)
        assert newest is not None and newest.id == later.id
        assert get_job(session, job_id=later.id or 0, learner_id=other.id) is None


def test_failures_are_recorded_with_a_clear_message(database, engine: Engine, make_learner) -> None:
    learner: Learner = make_learner()

    def refuse(session: Session, job: Job) -> tuple[str, dict | None]:
        raise FitRefused("not_enough", counted=3, needed=8)

    def crash(session: Session, job: Job) -> tuple[str, dict | None]:
        raise ZeroDivisionError("boom")

    refused = run_job(database, kind="optimize", learner_id=learner.id, work=refuse)
    assert refused.status == FAILED
    # The message in English; the result keeps the reason and figures for a page to word.
    assert refused.message.startswith("Not enough reviews yet: 3 of 8.")
    assert refused.result == {"reason": "not_enough", "counted": 3, "needed": 8}
    crashed = run_job(database, kind="optimize", learner_id=learner.id, work=crash)
    assert crashed.status == FAILED
    assert crashed.message == "unexpected error; the server log has the details"
    assert crashed.active_key is None


def test_a_job_left_unfinished_by_a_dead_process_stops_blocking(
    database, engine: Engine, make_learner
) -> None:
    learner: Learner = make_learner()
    with database.session() as session:
        stale = Job(
            kind="optimize",
            learner_id=learner.id,
            status="running",
            active_key=f"optimize:{learner.id}",
            created_at=datetime.now(UTC) - timedelta(hours=2),
        )
        session.add(stale)
        commit(session)
        stale_id = stale.id

    job = run_job(database, kind="optimize", learner_id=learner.id, work=lambda s, j: ("ok", None))
    assert job.id != stale_id and job.status == "done"
    with database.session() as session:
        abandoned = session.get(Job, stale_id)
        assert abandoned is not None
        assert (abandoned.status, abandoned.active_key) == (FAILED, None)
        assert abandoned.message.startswith("interrupted")


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), headers={"Accept-Language": "en"}) as client:
        yield client


def test_the_api_shows_a_learners_own_jobs_only(client: TestClient, settings: Settings) -> None:
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.session() as session:
        learner = get_learner(session, settings.learner_name, settings.timezone)
        stranger = Learner(name="stranger")
        session.add(stranger)
        commit(session)
        ids = (learner.id, stranger.id)
    mine = run_job(database, kind="optimize", learner_id=ids[0], work=lambda s, j: ("ok", {"n": 1}))
    theirs = run_job(database, kind="optimize", learner_id=ids[1], work=lambda s, j: ("ok", None))

    response = client.get(f"/api/jobs/{mine.id}")
    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in ("id", "kind", "status", "finished", "message", "result")} == {
        "id": mine.id,
        "kind": "optimize",
        "status": "done",
        "finished": True,
        "message": "ok",
        "result": {"n": 1},
    }
    assert client.get(f"/api/jobs/{theirs.id}").status_code == 404
    assert client.get("/api/jobs/999999").status_code == 404
