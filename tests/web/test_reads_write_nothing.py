"""Reads write nothing in local mode: every GET route of the app, and the study queue on a new day.

The routes come from the app's own route list, so a new GET route is read here as soon as it
exists (give its path parameters a value in PATH_VALUES). Team mode, signed in by cookie and by
API token, is read the same way in tests/team/test_matrix.py.
"""

import re
from collections.abc import Callable
from urllib.parse import quote

from fastapi.testclient import TestClient
from sqlmodel import select

from app.infra.jobs import run_job
from app.infra.models import DayPlan, MockSession
from tests.support.interview import WEBM, bank_dir, days, set_state, start_mock
from tests.support.routes import app_routes, statements, written_tables

__all__ = ["bank_dir"]  # the interview tests' bank, three decks

# Writes a GET may make in local mode, by table: bookkeeping of the request itself, not a change
# the reader asked for. Nothing else may write.
BOOKKEEPING: dict[str, str] = {
    "learner": "the local learner is made on first use (app/accounts/learners.get_learner), "
    "so a first visit to any page can create it",
}
MOUNT_URLS = {"/static": "/static/app.css"}
QUERIES = {"/search": {"q": "kernel"}, "/api/search": {"q": "kernel"}}


def path_values(rows: dict[str, int]) -> dict[str, Callable[[str], object]]:
    """A value for each path parameter, by name; the path itself picks among kinds of slug."""
    return {
        "card_id": lambda path: "gemm-core",
        "slug": lambda path: "kernels" if path.startswith(("/decks/", "/api/decks")) else "fusion",
        "title": lambda path: "算子融合",
        "code": lambda path: "zh",
        "folder": lambda path: "decks",
        "kind": lambda path: "flagged",
        "name": lambda path: "local",
        "token": lambda path: "no-such-invite",
        "path": lambda path: "decks/a-kernels.md" if path.startswith("/notes/") else "x.png",
        "practice_id": lambda path: rows["practice"],
        "interview_id": lambda path: rows["interview"],
        "mock_id": lambda path: rows["mock"],
        "recording_id": lambda path: rows["recording"],
        "job_id": lambda path: rows["job"],
    }


def url_for(path: str, values: dict[str, Callable[[str], object]]) -> str:
    if path in MOUNT_URLS:
        return MOUNT_URLS[path]

    def value(match: re.Match[str]) -> str:
        assert match[1] in values, f"{path}: give {{{match[1]}}} a value in path_values"
        return quote(str(values[match[1]](path)))

    return re.sub(r"\{(\w+)(?::\w+)?\}", value, path)


def learner_rows(client: TestClient, bank) -> dict[str, int]:
    """A rating, a flag, a practice run, an interview, a mock and its recording, and a job."""
    card = client.get("/api/study/next").json()
    rated = client.post(
        "/api/reviews", json={"card_id": card["id"], "rating": 3, "version": card["version"]}
    )
    assert rated.status_code == 200, rated.text
    assert client.post("/api/cards/gemm-core/flag", json={"flag": 2}).status_code == 200
    practice = client.post("/practice", data={"deck": "kernels"}).headers["location"]
    made = client.post("/api/interviews", json={"name": "Notes", "date": days(6)})
    assert made.status_code == 201, made.text
    mock = start_mock(client)
    mock_id = int(mock.rsplit("/", 1)[1])
    with bank.database.session() as session:
        first = session.get_one(MockSession, mock_id).card_ids[0]
    recorded = client.post(
        f"/api/mocks/{mock_id}/recordings",
        params={"card_id": first},
        content=WEBM,
        headers={"Content-Type": "audio/webm"},
    )
    assert recorded.status_code == 201, recorded.text
    job = run_job(
        bank.database,
        kind="reads",
        learner_id=bank.learner().id,
        work=lambda _session, _job: ("done", None),
    )
    return {
        "practice": int(practice.rsplit("/", 1)[1]),
        "interview": made.json()["id"],
        "mock": mock_id,
        "recording": recorded.json()["id"],
        "job": job.id,
    }


def test_every_get_route_writes_nothing_but_bookkeeping(app, client, bank):
    values = path_values(learner_rows(client, bank))
    gets = [path for method, path in app_routes(app) if method == "GET"]
    assert len(gets) > 50, gets  # the enumeration itself works
    problems, count, answered = [], 0, 0
    for path in gets:
        url = url_for(path, values)
        with statements(bank.engine) as seen:
            response = client.get(url, params=QUERIES.get(path))
        assert response.status_code < 500, (url, response.text[:200])
        answered += response.status_code < 400
        count += len(seen)
        if extra := written_tables(seen) - set(BOOKKEEPING):
            problems.append(f"GET {url} wrote {sorted(extra)}")
    assert not problems, "\n".join(problems)
    assert count > len(gets)  # the statements were seen
    # Local mode answers all but the team's pages (sign-in, invites, admin), which it refuses.
    assert answered > len(gets) * 3 // 4, answered


def test_the_local_learner_is_the_one_bookkeeping_write(app, client, bank):
    """The first request of a fresh app makes the local learner; the next makes nothing."""
    with statements(bank.engine) as seen:
        assert client.get("/").status_code == 200
    assert written_tables(seen) == set(BOOKKEEPING)
    with statements(bank.engine) as seen:
        assert client.get("/").status_code == 200
    assert written_tables(seen) == set()


def test_the_study_queue_and_page_write_nothing_on_a_new_day(client, bank, clock):
    for card_id in ("gemm-core", "roofline", "kv-cache", "fusion", "line", "tlb"):
        set_state(bank, card_id, stability=3.0, days_ago=2, due_in=40)
    made = client.post("/api/interviews", json={"name": "Notes", "date": days(6), "deck": "notes"})
    assert made.status_code == 201
    with bank.database.session() as session:
        assert session.exec(select(DayPlan)).one().day == clock.now.date()

    # A new study day with an interview ahead: the day's plan is not made yet.
    clock.advance(days=1)
    with statements(bank.engine) as seen:
        for path in ("/api/study/next", "/study", "/api/study/next?deck=notes", "/study?deck=x"):
            assert client.get(path).status_code in (200, 204), path
    assert seen, "the requests ran no statements"
    assert written_tables(seen) == set()

    # The day's first rating makes the day's plan.
    card = client.get("/api/study/next").json()
    rated = client.post(
        "/api/reviews", json={"card_id": card["id"], "rating": 3, "version": card["version"]}
    )
    assert rated.status_code == 200
    with bank.database.session() as session:
        assert session.exec(select(DayPlan)).one().day == clock.now.date()
