"""The limits a member cannot get around: the recording quota and the unfinished-mock cap."""

import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session, col, func, select

from app.infra.db import Database
from app.infra.models import MockSession, Recording
from app.interview.mock import MAX_UNFINISHED
from app.interview.recordings import MB, set_team_quota
from app.main import build_routes, create_app
from tests.support import http
from tests.support.interview import WEBM, bank_dir, restore, second, start_mock

pytestmark = pytest.mark.storage

__all__ = ["bank_dir", "second"]  # the bank of test_interview: seven cards, two of them "mock"

ALL_CARDS = 7
SIZE = 300_000  # a recording in the races: three fit in a quota of 1 MB
FITS = MB // SIZE


def audio(size: int) -> bytes:
    """A WebM recording of exactly `size` bytes."""
    return WEBM[:4] + b"\x00" * (size - 4)


def mock_cards(client, count: int = 2, **form: str) -> tuple[int, list[str]]:
    """A new mock interview: its id and its questions' card ids."""
    url = start_mock(client, count=str(count), **form)
    page = client.get(url).text
    cards = list(dict.fromkeys(part.split('"', 1)[0] for part in page.split('data-card-id="')[1:]))
    assert len(cards) == count
    return int(url.rsplit("/", 1)[1]), cards


def upload(client, mock_id: int, card_id: str, data: bytes):
    return client.post(
        f"/api/mocks/{mock_id}/recordings",
        params={"card_id": card_id},
        content=data,
        headers={"Content-Type": "audio/webm"},
    )


def stored(engine) -> tuple[int, int]:
    """(recordings, their bytes) in the database."""
    with Session(engine) as session:
        count, size = session.exec(
            select(func.count(), func.coalesce(func.sum(Recording.size), 0))
        ).one()
    return count, int(size)


def team_quota(database, megabytes: int | None) -> None:
    with database.session() as session:
        set_team_quota(session, quota_mb=megabytes, database=database)


def test_recordings_fill_the_quota_exactly_and_not_a_byte_more(client, bank):
    team_quota(bank.database, 1)
    mock_id, (first, other) = mock_cards(client)
    assert upload(client, mock_id, first, audio(MB)).status_code == 201  # at the quota
    over = upload(client, mock_id, other, audio(5))
    assert (over.status_code, over.json()["code"]) == (413, "recording_quota_exceeded"), over.text
    assert over.json()["detail"].startswith("Not enough recording space")
    chinese = client.post(
        f"/api/mocks/{mock_id}/recordings",
        params={"card_id": other},
        content=audio(5),
        headers={"Content-Type": "audio/webm", "Accept-Language": "zh"},
    )
    assert chinese.status_code == 413 and chinese.json()["detail"].startswith("录音空间不足")
    assert stored(bank.engine) == (1, MB)
    # A question's new recording replaces its old one, whose space it takes over.
    assert upload(client, mock_id, first, audio(MB)).status_code == 201
    assert client.get("/api/recordings/usage").json() == {"used": MB, "quota": MB}
    # Deleting the oldest recording makes room.
    oldest = client.get("/interview/recordings")
    assert oldest.status_code == 200 and 'id="recording-used"' in oldest.text
    (kept,) = client.get("/api/recordings").json()
    deleted = client.post(f"/interview/recordings/{kept['id']}/delete", data={"back": "list"})
    assert (deleted.status_code, deleted.headers["location"]) == (303, "/interview/recordings")
    assert upload(client, mock_id, other, audio(MB // 2)).status_code == 201
    assert client.get("/api/recordings/usage").json() == {"used": MB // 2, "quota": MB}


def test_the_server_setting_applies_until_an_administrator_sets_the_teams(app, client, bank):
    app.state.settings = app.state.settings.model_copy(update={"recording_quota_mb": 0})
    mock_id, (first, _) = mock_cards(client)
    assert upload(client, mock_id, first, audio(100)).status_code == 413
    team_quota(bank.database, 1)
    assert upload(client, mock_id, first, audio(100)).status_code == 201
    team_quota(bank.database, None)
    assert client.get("/api/recordings/usage").json() == {"used": 100, "quota": 0}


def test_the_learner_sees_the_space_used_on_the_mock_pages(client, find):
    mock_id, (first, _) = mock_cards(client)
    assert upload(client, mock_id, first, audio(MB // 2)).status_code == 201
    for page in (client.get("/interview/mock"), client.get(f"/interview/mock/{mock_id}/summary")):
        used = find(page.text, "recording-used")
        assert used is not None and used.text == "Recordings use 0.5 of 200.0 MB"
        assert find(page.text, "manage-recordings") is not None


def race_uploads(clients: list[Any], size: int) -> list[int]:
    """One mock interview of every card; each client uploads one answer, all at once."""
    mock_id, cards = mock_cards(clients[0], count=ALL_CARDS)
    barrier = threading.Barrier(ALL_CARDS, timeout=10)

    def send(index: int) -> int:
        barrier.wait()
        client = clients[index % len(clients)]
        return upload(client, mock_id, cards[index], audio(size)).status_code

    with ThreadPoolExecutor(ALL_CARDS) as pool:
        return sorted(pool.map(send, range(ALL_CARDS)))


def test_uploads_at_once_to_two_apps_never_pass_the_quota(app, client, bank, database_url):
    """Two apps, each with its own Database (engine, pool, writer lock), as two workers have."""
    team_quota(bank.database, 1)
    other = create_app(app.state.settings)
    other.state.database.upgrade()  # before its lifespan: written to first
    other.state.database = Database.open(database_url)
    for each in (app, other):
        build_routes(each)  # requests race from two clients, each an event loop of its own
    try:
        with TestClient(other, follow_redirects=False) as two:
            statuses = race_uploads([client, two], SIZE)
    finally:
        other.state.database.dispose()
    assert statuses == [201] * FITS + [413] * (ALL_CARDS - FITS)
    assert stored(bank.engine) == (FITS, FITS * SIZE)


@pytest.mark.slow
def test_uploads_at_once_to_two_worker_processes_never_pass_the_quota(
    app: FastAPI, database_url: str, bank_dir: Path, live_server: Callable[..., Any]
) -> None:
    """`qbank serve --workers 2`: seven uploads at once, room for three of them."""
    server = live_server(database_url, bank_dir, workers=2, env={"QBANK_RECORDING_QUOTA_MB": "1"})
    clients = [http.client(server.url, timeout=60) for _ in range(ALL_CARDS)]
    try:
        statuses = race_uploads(clients, SIZE)
    finally:
        for client in clients:
            client.close()
    assert statuses == [201] * FITS + [413] * (ALL_CARDS - FITS)
    assert stored(app.state.database.engine) == (FITS, FITS * SIZE)


def test_a_restore_adds_recordings_only_if_they_all_fit(client, second, find):
    first_mock, (card, other) = mock_cards(client)
    assert upload(client, first_mock, card, audio(MB // 2)).status_code == 201
    assert upload(client, first_mock, other, audio(MB // 2 + 1)).status_code == 201
    backup = client.get("/backup.json").text
    assert len(json.loads(backup)["recordings"]) == 2

    second.post("/interview/mock", data={"count": "1"})  # the learner exists with a mock
    with second.app.state.database.session() as session:
        set_team_quota(session, quota_mb=1, database=second.app.state.database)
    refused = restore(second, backup)
    assert refused.status_code == 413
    assert find(refused.text, "restore-error").text.startswith("The backup's recordings take")
    assert second.get("/api/recordings").json() == []
    assert stored(second.app.state.database.engine) == (0, 0)
    with second.app.state.database.session() as session:  # nothing at all was restored
        assert session.exec(select(func.count()).select_from(MockSession)).one() == 1

    with second.app.state.database.session() as session:
        set_team_quota(session, quota_mb=2, database=second.app.state.database)
    assert restore(second, backup).status_code == 200
    assert stored(second.app.state.database.engine) == (2, MB + 1)


def test_unfinished_mock_interviews_are_capped_and_one_can_be_ended(client, bank, find):
    started = [start_mock(client) for _ in range(MAX_UNFINISHED)]
    refused = client.post("/interview/mock", data={"count": "2"})
    assert refused.status_code == 409
    assert find(refused.text, "mock-error").text.startswith(f"You have {MAX_UNFINISHED}")
    assert len(find(refused.text, "unfinished").text) > 0
    ended = client.post(f"{started[0]}/end")
    assert (ended.status_code, ended.headers["location"]) == (303, f"{started[0]}/summary")
    assert client.get(f"{started[0]}/summary").status_code == 200
    start_mock(client)
    with bank.database.session() as session:
        open_runs = session.exec(
            select(func.count()).where(col(MockSession.finished_at).is_(None))
        ).one()
    assert open_runs == MAX_UNFINISHED


def test_mock_interviews_started_at_once_stop_at_the_cap(client, bank):
    client.get("/interview/mock")  # the learner exists before the race
    barrier = threading.Barrier(MAX_UNFINISHED + 3, timeout=10)

    def begin(_: int) -> int:
        barrier.wait()
        return client.post("/interview/mock", data={"count": "2"}).status_code

    with ThreadPoolExecutor(MAX_UNFINISHED + 3) as pool:
        statuses = sorted(pool.map(begin, range(MAX_UNFINISHED + 3)))
    assert statuses == [303] * MAX_UNFINISHED + [409] * 3
    with bank.database.session() as session:
        assert session.exec(select(func.count()).select_from(MockSession)).one() == MAX_UNFINISHED


def test_a_restore_brings_unfinished_mocks_past_the_cap_back_ended(client, clock, second):
    for _ in range(MAX_UNFINISHED):
        clock.advance(minutes=1)  # a restore tells mock interviews apart by their start
        start_mock(client)
    backup = client.get("/backup.json").text
    start_mock(second)  # the other instance's learner has one unfinished already
    assert restore(second, backup).status_code == 200
    with second.app.state.database.session() as session:
        runs = session.exec(select(MockSession)).all()
    assert len(runs) == MAX_UNFINISHED + 1
    assert sum(run.finished_at is None for run in runs) == MAX_UNFINISHED


@pytest.mark.parametrize("quota", ["", "0", "250"])
def test_an_administrator_sets_the_teams_recording_space(client, bank, find, quota):
    saved = client.post("/admin/limits", data={"recording_quota_mb": quota})
    assert saved.status_code == 303, saved.text
    page = client.get(saved.headers["location"]).text
    assert find(page, "limits-saved") is not None
    field = find(page, "recording-quota")
    assert field is not None and field.attrs["value"] == quota
    expected = (int(quota) if quota else 200) * MB
    assert client.get("/api/recordings/usage").json()["quota"] == expected


def test_a_bad_team_quota_is_refused(client):
    for bad in ("-1", "many", str(2**21)):
        assert client.post("/admin/limits", data={"recording_quota_mb": bad}).status_code == 400
