"""Answering a mock interview through the JSON API, as the page's outbox does: each answer once."""

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import event
from sqlmodel import col, select

from app.infra.models import MockAnswer, MockSession, ReviewLog
from app.interview.keypoints import points_key
from tests.support.interview import bank_dir, start_mock

pytestmark = pytest.mark.storage

__all__ = ["bank_dir"]  # the bank of test_interview: a deck of two questions with key points


def session_of(client) -> tuple[int, list[str], dict[str, str]]:
    """A new two-question mock interview: its id, its questions, and each one's checklist key."""
    url = start_mock(client, deck="mock")
    page = client.get(url).text
    mock_id = int(url.rsplit("/", 1)[1])
    keys = dict(re.findall(r'data-card-id="([^"]+)".*?name="key" value="([^"]+)"', page, re.S))
    return mock_id, list(keys), keys


def send(client, mock_id: int, card_id: str, key: str, idem: str | None, **body: object):
    headers = {"Idempotency-Key": idem} if idem else {}
    payload = {"card_id": card_id, "key": key, "said": [0], "answer_ms": 50_000, "total_ms": 70_000}
    return client.post(f"/api/mocks/{mock_id}/answers", json={**payload, **body}, headers=headers)


def rows(bank, model, *where):
    with bank.database.session() as session:
        return list(session.exec(select(model).where(*where).order_by(col(model.id))))


def test_the_page_holds_every_question_left(client, find):
    url = start_mock(client, deck="mock")
    page = client.get(url).text
    assert page.count('<template class="mock-later" data-slot="later-question">') == 1
    assert find(page, "mock-state") is not None


def test_an_answer_sent_twice_is_recorded_once(client, bank):
    mock_id, cards, keys = session_of(client)
    first = send(client, mock_id, cards[0], keys[cards[0]], "a-1")
    again = send(client, mock_id, cards[0], keys[cards[0]], "a-1")
    assert (first.status_code, again.status_code) == (200, 200), first.text
    assert first.json()["replayed"] is False and again.json()["replayed"] is True
    assert again.json() | {"replayed": False} == first.json()
    assert first.json()["finished"] is False
    assert len(rows(bank, MockAnswer)) == 1
    assert [log.card_id for log in rows(bank, ReviewLog)] == [cards[0]]
    answer = rows(bank, MockAnswer)[0]
    assert (answer.answer_ms, answer.total_ms, answer.points_said) == (50_000, 70_000, [0])


def test_the_same_answer_sent_at_once_is_recorded_once(client, bank):
    mock_id, cards, keys = session_of(client)
    with ThreadPoolExecutor(4) as pool:
        answers = list(
            pool.map(lambda _: send(client, mock_id, cards[0], keys[cards[0]], "race"), range(4))
        )
    assert [a.status_code for a in answers] == [200] * 4
    assert sorted(a.json()["replayed"] for a in answers) == [False, True, True, True]
    assert len(rows(bank, MockAnswer)) == 1
    assert len(rows(bank, ReviewLog)) == 1


def test_an_answer_counted_as_a_review_and_sent_again_rates_once(client, bank):
    mock_id, cards, keys = session_of(client)
    for _ in range(2):
        key = keys[cards[0]]
        sent = send(client, mock_id, cards[0], key, "c-1", rating=4, count_as_review=True)
        assert sent.status_code == 200 and sent.json()["counted"] is True
    logs = rows(bank, ReviewLog)
    assert [(log.card_id, log.mode, log.rating) for log in logs] == [(cards[0], "study", 4)]
    assert bank.state(cards[0]) is not None


def test_a_counted_answer_rates_through_the_study_loop_in_one_commit(client, bank):
    mock_id, cards, keys = session_of(client)
    commits: list[int] = []  # the statements that wrote, in each transaction committed
    writes: list[str] = []
    refreshed: list[object] = []
    pins = client.app.state.pins
    refresh = pins.refresh
    engine = bank.database.engine

    def statement(conn: object, cursor: object, sql: str, *args: object) -> None:
        if sql.lstrip().split()[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            writes.append(sql)

    def commit(connection: object) -> None:
        commits.append(len(writes))
        writes.clear()

    event.listen(engine, "before_cursor_execute", statement)
    event.listen(engine, "commit", commit)
    pins.refresh = lambda session, **kw: (refreshed.append(kw), refresh(session, **kw))[1]
    try:
        sent = send(
            client, mock_id, cards[0], keys[cards[0]], "one", rating=3, count_as_review=True
        )
    finally:
        event.remove(engine, "commit", commit)
        event.remove(engine, "before_cursor_execute", statement)
        pins.refresh = refresh
    assert sent.status_code == 200 and sent.json()["counted"] is True
    # The rating, its log row, the answer and the run's position: one write transaction
    # (reads end with a commit of their own, which writes nothing).
    logs = rows(bank, ReviewLog)
    assert [(log.card_id, log.mode) for log in logs] == [(cards[0], "study")]
    assert rows(bank, MockAnswer)[0].answered_at == logs[0].reviewed_at
    assert len(refreshed) == 1
    assert len([n for n in commits if n]) == 1, commits


def test_answers_after_one_refused_are_kept_and_it_is_asked_again(client, bank, find):
    mock_id, cards, keys = session_of(client)
    stale = points_key(["a point that is no longer there"])
    refused = send(client, mock_id, cards[0], stale, "r-1")
    assert (refused.status_code, refused.json()["code"]) == (409, "key_points_changed")
    # The next answer, queued behind the refused one, is kept all the same.
    later = send(client, mock_id, cards[1], keys[cards[1]], "r-2")
    assert later.status_code == 200 and later.json()["finished"] is False
    # The session is still at the refused question, shown again with the time and rating kept.
    again = client.get(f"/interview/mock/{mock_id}?phase=answer&rating=2&changed=true")
    assert find(again.text, "mock-card").attrs["data-card-id"] == cards[0]
    assert "tick them again" in find(again.text, "mock-error").text
    assert 'name="rating" value="2" checked' in again.text
    assert '<template class="mock-later" data-slot="later-question">' not in again.text
    done = send(client, mock_id, cards[0], keys[cards[0]], "r-3")
    assert done.json()["finished"] is True
    assert [(a.card_id, a.position) for a in rows(bank, MockAnswer)] == [
        (cards[1], 1),
        (cards[0], 0),
    ]
    (run,) = rows(bank, MockSession)
    assert run.finished_at is not None
    assert client.get(f"/interview/mock/{mock_id}").headers["location"].endswith("/summary")


def test_bad_answers_are_refused(client):
    mock_id, cards, keys = session_of(client)
    assert send(client, mock_id, "gemm-core", "x", None).status_code == 409  # not asked
    assert send(client, mock_id, cards[0], keys[cards[0]], None, said=[99]).status_code == 400
    assert send(client, mock_id, cards[0], keys[cards[0]], None, answer_ms=-1).status_code == 422
    assert send(client, mock_id + 1000, cards[0], keys[cards[0]], None).status_code == 404
