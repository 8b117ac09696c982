"""Request ids in every log record, JSON logs, log levels and metrics across worker processes."""

import io
import json
import logging
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.config import Settings
from app.infra.jobs import Outcome, start_job, wait_for_job
from app.infra.logs import REQUEST_ID, JsonFormatter, RequestIdFilter
from app.infra.models import Job
from app.main import create_app
from tests.support import http
from tests.support.live_server import LiveServer

REQUESTS_TOTAL = re.compile(
    r'^qbank_http_requests_total\{method="GET",route="/api/decks",status="200"\} ([\d.e+]+)$',
    re.MULTILINE,
)


@pytest.fixture
def json_records() -> Iterator[Callable[[], list[dict]]]:
    """The qbank loggers' records while the test runs, formatted as the JSON log would be."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("qbank")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    logger.removeHandler(handler)
    logger.setLevel(level)


def test_a_request_id_is_kept_when_sane_and_made_otherwise(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        kept = client.get("/healthz", headers={"X-Request-ID": "lb-7f3a.01_x"})
        assert kept.headers["x-request-id"] == "lb-7f3a.01_x"
        made = [
            client.get("/healthz", headers=headers).headers["x-request-id"]
            for headers in (
                {},
                {},
                {"X-Request-ID": 'no spaces or quotes"'},
                {"X-Request-ID": "x" * 65},
            )
        ]
    assert all(re.fullmatch(r"[0-9a-f]{16}", rid) for rid in made), made
    assert len(set(made)) == len(made)


def test_an_unexpected_error_is_logged_under_its_request_id(
    settings: Settings, json_records: Callable[[], list[dict]]
) -> None:
    app = create_app(settings)
    app.state.database.upgrade()  # before its lifespan: written to first

    def broken() -> None:
        raise RuntimeError("the disk caught fire")

    app.add_api_route("/broken", broken)
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/broken", headers={"X-Request-ID": "req-broken-1"})
        client.get("/healthz", headers={"X-Request-ID": "req-after"})
    assert answer.status_code == 500
    assert answer.headers["x-request-id"] == "req-broken-1"
    records = json_records()
    error = next(r for r in records if r["level"] == "ERROR")
    assert error["request_id"] == "req-broken-1"
    assert error["message"] == "unhandled error on GET /broken"
    assert "RuntimeError: the disk caught fire" in error["exception"]
    access = [r for r in records if r["logger"] == "qbank.access"]
    assert [(r["request_id"], r["path"], r["status"]) for r in access] == [
        ("req-broken-1", "/broken", 500),
        ("req-after", "/healthz", 200),
    ]


def test_a_background_job_logs_under_the_request_that_started_it(
    database, engine: Engine, json_records: Callable[[], list[dict]]
) -> None:
    def work(_session: Session, _job: Job) -> Outcome:
        logging.getLogger("qbank.jobs").info("working on it")
        return "done", None

    started = REQUEST_ID.set("req-that-started-it")
    try:
        job = start_job(database, kind="check", learner_id=None, work=work)
    finally:
        REQUEST_ID.reset(started)
    assert job.id is not None
    wait_for_job(database, job.id, timeout=30)
    record = next(r for r in json_records() if r["message"] == "working on it")
    assert record["request_id"] == "req-that-started-it"


def test_a_bad_log_setting_is_named_in_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", "from app.cli import main; main()", "serve"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "QBANK_LOG_LEVEL": "loud", "QBANK_LOG_FORMAT": "JSON"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: QBANK_LOG_LEVEL: Input should be 'debug', 'info'")
    assert "QBANK_LOG_FORMAT" not in result.stderr  # any case will do


def test_a_taken_port_is_one_line_with_the_fix(tmp_path: Path, database_url: str) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                "from app.cli import main; main()",
                "serve",
                "--port",
                str(port),
            ],
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin", "QBANK_DATABASE_URL": database_url},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1
    assert result.stderr == (
        f"error: port {port} on 127.0.0.1 is already in use, perhaps by another qbank: stop that "
        "server, or start this one on a free port with --port (or QBANK_PORT)\n"
    )


def _decks_total(client: httpx.Client) -> float:
    found = REQUESTS_TOTAL.findall(client.get("/metrics").text)
    assert len(found) == 1, found
    return float(found[0])


def _json_lines(server: LiveServer) -> list[dict]:
    return [json.loads(line) for line in server.output().splitlines() if line.startswith("{")]


@pytest.mark.slow
def test_two_workers_show_one_set_of_metrics_and_log_json_with_ids(
    database_url: str, drill_dir: Path, live_server: Callable[..., LiveServer]
) -> None:
    """Requests spread over two worker processes; every scrape adds up both workers' counters."""
    ended = subprocess.Popen(["true"])
    ended.wait()
    abandoned = Path(tempfile.mkdtemp(prefix=f"qbank-metrics-{ended.pid}-"))
    ours = Path(tempfile.mkdtemp(prefix=f"qbank-metrics-{os.getpid()}-"))
    server = live_server(database_url, drill_dir, workers=2, env={"QBANK_LOG_FORMAT": "json"})
    sent: list[str] = []
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    while len(workers) < 2:
        assert time.monotonic() < deadline, "every request went to one worker"
        # A new connection each time, so that either worker may accept it.
        with http.client(server.url, timeout=10) as client:
            request_id = f"probe-{len(sent)}"
            answer = client.get("/api/decks", headers={"X-Request-ID": request_id})
            assert answer.status_code == 200
            assert answer.headers["x-request-id"] == request_id
            sent.append(request_id)
        time.sleep(0.05)  # the access line is written after the answer
        workers = {
            r["process"]
            for r in _json_lines(server)
            if r.get("logger") == "qbank.access" and r.get("path") == "/api/decks"
        }
    for _ in range(4):  # each scrape is answered by either worker
        with http.client(server.url, timeout=10) as client:
            assert _decks_total(client) == len(sent)

    records = _json_lines(server)
    assert records, server.output()
    access = [r for r in records if r.get("logger") == "qbank.access" and r["path"] == "/api/decks"]
    assert sorted(r["request_id"] for r in access) == sorted(sent)
    # Alembic's chatter at start is off; what the server says is all JSON.
    text = server.output()
    assert "alembic" not in text and "Context impl" not in text
    assert all(line.startswith("{") for line in text.splitlines() if line.strip()), text
    # The folder of a server that was killed is removed at start; a live process's is kept.
    assert not abandoned.exists()
    assert ours.is_dir()
    ours.rmdir()


@pytest.mark.slow
def test_the_log_level_setting_quiets_the_server(
    database_url: str, drill_dir: Path, live_server: Callable[..., LiveServer]
) -> None:
    server = live_server(database_url, drill_dir, env={"QBANK_LOG_LEVEL": "WARNING"})
    with http.client(server.url, timeout=10) as client:
        assert client.get("/api/decks").status_code == 200
        assert _decks_total(client) == 1  # one process: its own registry
    time.sleep(0.1)
    assert "INFO" not in server.output() and "/api/decks" not in server.output()
