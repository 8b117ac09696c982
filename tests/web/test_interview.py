"""Interview mode over real HTTP: interviews, readiness, the plan in the study queue, mocks."""

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fsrs import Scheduler
from sqlmodel import col, select

from app.infra.models import MockAnswer, Recording, ReviewLog, StudyPin
from app.interview.keypoints import points_key
from app.interview.pins import set_pins
from app.scheduling.cardstate import aware
from tests.support.interview import WEBM, bank_dir, days, restore, second, set_state, start_mock
from tests.support.web_bank import START

pytestmark = pytest.mark.storage

__all__ = ["bank_dir", "second"]  # fixtures, from tests/support/interview.py


# Interviews and readiness.


def test_set_list_and_delete_an_interview(client):
    made = client.post(
        "/api/interviews", json={"name": "NVIDIA kernel team", "date": days(12), "deck": "kernels"}
    )
    assert made.status_code == 201, made.text
    interview = made.json()
    assert interview == {
        "id": interview["id"],
        "name": "NVIDIA kernel team",
        "date": days(12),
        "deck": "kernels",
        "section": None,
        "tag": None,
        "folder": None,
        "target": 0.9,
    }
    assert client.get("/api/interviews").json() == [interview]
    ready = client.get(f"/api/interviews/{interview['id']}/readiness").json()
    assert (ready["cards"], ready["ready"], ready["share_ready"], ready["days_left"]) == (
        3,
        0,
        0,
        12,
    )
    assert ready["total_reviews"] == sum(day["reviews"] for day in ready["plan"]) > 0
    assert ready["per_day"] == max(day["reviews"] for day in ready["plan"])
    assert [d["deck"] for d in ready["decks"]] == ["kernels"]
    assert [(s["section"], s["cards"]) for s in ready["sections"]] == [("GPU 基础", 2), ("推理", 1)]
    assert {w["card_id"] for w in ready["weakest"]} == {"gemm-core", "roofline", "kv-cache"}

    home = client.get("/").text
    assert "NVIDIA kernel team" in home
    assert "in 12 days" in home and "ready: 0% of 3 cards at 90%" in home

    assert client.delete(f"/api/interviews/{interview['id']}").status_code == 204
    assert client.get("/api/interviews").json() == []
    assert client.get(f"/api/interviews/{interview['id']}/readiness").status_code == 404


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": "Past", "date": days(-1)}, "interview_date_past"),
        ({"name": "Far", "date": days(400)}, "interview_date_too_far"),
        ({"name": "Nothing", "date": days(3), "deck": "no-such-deck"}, "scope_empty"),
        ({"name": "  ", "date": days(3)}, "interview_name_missing"),
    ],
)
def test_bad_interviews_are_refused_with_a_reason(client, body, code):
    refused = client.post("/api/interviews", json=body)
    assert (refused.status_code, refused.json()["code"]) == (400, code)
    assert client.get("/api/interviews").json() == []


def test_the_form_comes_back_filled_in_when_the_date_is_wrong(client, find):
    page = client.post("/interviews", data={"name": "Kernel team", "date": days(-3)})
    assert page.status_code == 400
    assert "is in the past" in find(page.text, "interview-error").text
    assert 'value="Kernel team"' in page.text and f'value="{days(-3)}"' in page.text
    made = client.post("/interviews", data={"name": "Kernel team", "date": days(5), "tag": "gpu"})
    assert made.status_code == 303
    detail = client.get(made.headers["location"]).text
    assert "Kernel team" in detail and "ready: 0% of 3 cards at 90%" in detail
    assert find(detail, "plan") is not None


def test_readiness_is_fsrs_predicted_recall_on_the_day(client, bank):
    set_state(bank, "gemm-core", stability=400.0, days_ago=1, due_in=300)
    set_state(bank, "roofline", stability=5.0, days_ago=3, due_in=2)
    interview = client.post(
        "/api/interviews", json={"name": "Soon", "date": days(10), "deck": "kernels"}
    ).json()
    ready = client.get(f"/api/interviews/{interview['id']}/readiness").json()
    decay = -Scheduler().parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    # The interview's day starts at 04:00 UTC for this learner (rollover hour 4).
    moment = datetime.fromisoformat(days(10)).replace(hour=4, tzinfo=UTC)
    roofline = (1 + factor * (moment - (START - timedelta(days=3))).days / 5.0) ** decay
    weakest = {w["card_id"]: w for w in ready["weakest"]}
    assert "gemm-core" not in weakest  # ready
    assert weakest["roofline"]["recall"] == pytest.approx(roofline, abs=1e-4)
    assert weakest["kv-cache"] == {
        "card_id": "kv-cache",
        "deck": "kernels",
        "section": "推理",
        "recall": 0.0,
        "studied": False,
    }
    assert ready["weakest"][0]["card_id"] == "kv-cache"  # never studied first
    assert (ready["cards"], ready["ready"]) == (3, 1)
    assert ready["share_ready"] == pytest.approx(1 / 3, abs=1e-4)
    sections = {s["section"]: (s["ready"], s["cards"]) for s in ready["sections"]}
    assert sections == {"GPU 基础": (1, 2), "推理": (0, 1)}


# The plan in the study queue.


def test_the_queue_serves_plan_cards_first_until_the_interview(client, bank, clock):
    # Everything is scheduled far ahead: nothing is due, and there are no new cards.
    for card_id in ("gemm-core", "roofline", "kv-cache", "fusion", "paged", "line", "tlb"):
        set_state(bank, card_id, stability=3.0, days_ago=2, due_in=40)
    assert client.get("/api/study/next").status_code == 204
    interview = client.post(
        "/api/interviews", json={"name": "Notes", "date": days(6), "deck": "notes"}
    ).json()
    plan = client.get(f"/api/interviews/{interview['id']}/readiness").json()["plan"]
    assert plan[0]["date"] == days(0) and plan[0]["reviews"] >= 1

    served = []
    answered: dict[str, Any] | None = None  # the next card a rating's answer held
    while (nxt := client.get("/api/study/next")).status_code == 200:
        card = nxt.json()
        assert card["deck"] == "notes"  # only plan cards: nothing else is due
        if served:  # a rating's answer served the plan as the queue does
            assert answered is not None and answered["id"] == card["id"]
        served.append(card["id"])
        rated = client.post(
            "/api/reviews", json={"card_id": card["id"], "rating": 3, "version": card["version"]}
        )
        assert rated.status_code == 200
        answered = rated.json()["next"]
        assert len(served) < 10
    assert answered is None  # the plan done, nothing else due
    assert set(served) <= {"fusion", "paged"} and served
    # The rating moved the card's schedule on as an early review.
    assert aware(bank.state(served[0]).last_review) == START

    # After the interview the plan is gone: the queue is the normal schedule again.
    clock.advance(days=7)
    assert client.get("/api/study/next").status_code == 204
    with bank.database.session() as session:
        assert session.exec(select(StudyPin).where(StudyPin.day > clock.now.date())).all() == []


def test_a_rating_s_answer_serves_the_cards_pinned_today_in_order(client, bank, clock):
    """The answer to a rating holds the next pinned card, as the queue would serve it."""
    for card_id in ("fusion", "paged", "line"):
        set_state(bank, card_id, stability=3.0, days_ago=2, due_in=40)
    learner = bank.learner()
    with bank.database.session() as session:
        set_pins(
            session,
            learner=learner,
            now=clock.now,
            card_ids=["fusion", "paged", "line"],
            source="mock",
            replace=True,
            database=bank.database,
        )
    card = client.get("/api/study/next").json()
    answered = []
    for _ in range(3):
        body = {"card_id": card["id"], "rating": 3, "version": card["version"]}
        card = client.post("/api/reviews", json=body).json()["next"]
        answered.append(card and card["id"])
    assert answered[:2] == ["paged", "line"]


# Mock interviews.


def hidden(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" (?:id="[^"]*" )?value="([^"]*)"', page)
    assert found, name
    return found.group(1)


def test_a_mock_interview_end_to_end(client, clock, find, bank):
    url = start_mock(client, deck="mock", minutes="2", followup_seconds="30", order="weakest")
    page = client.get(url).text
    card_id = find(page, "mock-card").attrs["data-card-id"]
    first = card_id
    # The question alone, with its clock; the answer is not shown yet.
    assert find(page, "phase-question").hidden is False
    assert find(page, "phase-answer").hidden
    assert find(page, "mock-clock").text == "2:00"
    t0 = int(find(page, "mock-card").attrs["data-t0"])
    assert t0 == int(START.timestamp() * 1000)

    # Answering takes 2.5 minutes: the clock goes into overtime and stays on the page.
    clock.advance(seconds=150)
    link = find(page, "done-answering").attrs["href"]
    followups = int(find(page, "mock-card").attrs["data-followups"])
    if card_id == "line":
        assert followups == 2 and "phase=f0" in link
        ask = client.get(url + link.replace("&amp;", "&")).text
        assert not find(ask, "phase-f0").hidden and find(ask, "phase-question").hidden
        assert "Why does false sharing hurt?" in find(ask, "phase-f0").text
        assert find(ask, "mock-clock").text == "2:30"  # the time the main answer took
        assert "over" in find(ask, "mock-timer").attrs["class"]
        link = re.search(r'href="(\?phase=f1[^"]*)"', ask).group(1)
        clock.advance(seconds=20)
        ask = client.get(url + link.replace("&amp;", "&")).text
        assert "What is a sector?" in find(ask, "phase-f1").text
        link = re.search(r'href="(\?phase=answer[^"]*)"', ask).group(1)
    answer_page = client.get(url + link.replace("&amp;", "&")).text
    assert not find(answer_page, "phase-answer").hidden
    # The checklist is the answer's key points as the import compiled them.
    checklist = find(answer_page, "checklist").text
    if card_id == "line":
        assert "The unit a cache moves" in checklist and "four 32 B sectors" in checklist
    else:
        assert "It caches page translations." in checklist and "Huge pages" in checklist
    clock.advance(seconds=30)
    form = {
        "card_id": card_id,
        "key": hidden(answer_page, "key"),
        "t0": hidden(answer_page, "t0"),
        "t1": hidden(answer_page, "t1"),
        "said": ["0", "1"],
        "followups_answered": ["0"] if followups else [],
        "rating": "0",  # as coverage suggests
    }
    done = client.post(f"{url}/answer", data=form)
    assert done.status_code == 303 and done.headers["location"] == url
    # The same submission again (a double click) records nothing more.
    assert client.post(f"{url}/answer", data=form).status_code == 303

    # The second question, counted as a review, with everything said.
    page = client.get(url).text
    card_id = find(page, "mock-card").attrs["data-card-id"]
    assert card_id != first
    answer_page = client.get(f"{url}?phase=answer&t0={find(page, 'mock-card').attrs['data-t0']}")
    total = len(re.findall(r'name="said"', answer_page.text))
    clock.advance(seconds=40)
    finished = client.post(
        f"{url}/answer",
        data={
            "card_id": card_id,
            "key": hidden(answer_page.text, "key"),
            "t0": hidden(answer_page.text, "t0"),
            "said": [str(i) for i in range(total)],
            "rating": "4",
            "count_as_review": "true",
        },
    )
    assert finished.status_code == 303
    assert client.get(url).headers["location"] == f"{url}/summary"

    with bank.database.session() as session:
        answers = {a.card_id: a for a in session.exec(select(MockAnswer))}
        logs = list(session.exec(select(ReviewLog).order_by(col(ReviewLog.id))))
    one, two = answers[first], answers[card_id]
    assert one.answer_ms == 150_000  # to the end of the main answer, follow-ups apart
    assert one.total_ms == (180_000 if first == "tlb" else 200_000)
    assert one.limit_ms == 120_000
    assert one.points_said == [0, 1]
    assert one.followups_answered == (1 if first == "line" else 0)
    # Coverage suggested the rating: 2 of 3 points is Hard (< 70%).
    assert one.rating == 2 and one.points_total == 3 and not one.counted
    assert two.rating == 4 and two.counted
    assert [(log.card_id, log.mode) for log in logs] == [(first, "practice"), (card_id, "study")]
    # Practice leaves the schedule alone; the counted answer moved it.
    assert bank.state(first) is None
    assert bank.state(card_id) is not None

    summary = client.get(f"{url}/summary")
    assert summary.status_code == 200
    result = find(summary.text, f"result-{first}").text
    assert "Overtime +0:" in result
    assert "Coverage 2/3 (67%)" in result
    assert "Rate Hard" in result
    assert find(summary.text, "mean-coverage").text == "83%"
    if first == "line":
        assert "Follow-ups answered 1/2" in result
        assert "Weakest topics" in summary.text and "/topics/fusion" in summary.text

    # The missed question goes to today's study, first in the queue.
    assert client.post(f"{url}/study").headers["location"] == "/study"
    assert client.get("/api/study/next").json()["id"] == first

    history = client.get("/interview/mock").text
    assert "Mock interview history" in history
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart mock-history"' in history


def test_changed_key_points_are_asked_again_with_nothing_lost(client, clock, find):
    url = start_mock(client, deck="mock", count="1")
    page = client.get(url).text
    card_id = find(page, "mock-card").attrs["data-card-id"]
    answer_page = client.get(url + "?phase=answer&t0=" + find(page, "mock-card").attrs["data-t0"])
    t0, t1 = hidden(answer_page.text, "t0"), hidden(answer_page.text, "t1")
    stale = points_key(["a point that is no longer there"])
    refused = client.post(
        f"{url}/answer",
        data={"card_id": card_id, "key": stale, "t0": t0, "t1": t1, "said": ["0"], "rating": "3"},
    )
    assert refused.status_code == 409
    assert "key points of this answer changed" in find(refused.text, "mock-error").text
    # The checklist is shown again, up to date, with the times and the rating kept.
    assert hidden(refused.text, "key") == hidden(answer_page.text, "key")
    assert (hidden(refused.text, "t0"), hidden(refused.text, "t1")) == (t0, t1)
    assert 'name="rating" value="3" checked' in refused.text
    assert client.get(url).status_code == 200  # still on that question


def test_the_mock_history_is_dated_in_the_learners_zone(client, clock, bank):
    bank.configure(timezone="Asia/Shanghai")
    clock.advance(hours=10)  # 22:00 UTC on 10 March: 06:00 on 11 March in Beijing
    url = start_mock(client, deck="mock", count="1")
    page = client.get(url).text
    t0 = re.search(r'data-t0="(\d+)"', page).group(1)
    answer_page = client.get(f"{url}?phase=answer&t0={t0}").text
    card_id = re.search(r'name="card_id" value="([^"]+)"', answer_page).group(1)
    form = {"key": hidden(answer_page, "key"), "t0": hidden(answer_page, "t0")}
    form |= {"t1": hidden(answer_page, "t1"), "said": ["0"], "rating": "3"}
    assert client.post(f"{url}/answer", data={"card_id": card_id, **form}).status_code == 303

    history = client.get("/interview/mock").text
    assert f'href="{url}/summary">2025-03-11 06:00</a>' in history
    assert "2025-03-10" not in history  # the chart's point says so too


@pytest.mark.parametrize(
    ("form", "status"),
    [
        ({"count": "0"}, 400),
        ({"count": "2", "deck": "no-such-deck"}, 400),
        ({"count": "2", "order": "alphabetical"}, 400),
        ({"count": "2", "minutes": "0"}, 400),
    ],
)
def test_bad_mock_interviews_are_refused(client, form, status):
    assert client.post("/interview/mock", data=form).status_code == status


# Recordings.


def test_recordings_are_kept_played_back_and_deleted(client, bank):
    url = start_mock(client, deck="mock")
    mock_id = url.rsplit("/", 1)[1]
    card_id = client.get(url).text.split('data-card-id="', 1)[1].split('"', 1)[0]
    sent = client.post(
        f"/api/mocks/{mock_id}/recordings",
        params={"card_id": card_id},
        content=WEBM,
        headers={"Content-Type": "audio/webm;codecs=opus"},
    )
    assert sent.status_code == 201, sent.text
    body = sent.json()
    assert (body["type"], body["size"], body["card_id"]) == ("audio/webm", len(WEBM), card_id)
    played = client.get(body["url"])
    assert played.status_code == 200
    assert played.content == WEBM and played.headers["content-type"] == "audio/webm"
    assert played.headers["cache-control"].startswith("private")
    assert [r["id"] for r in client.get("/api/recordings").json()] == [body["id"]]

    # Recording the same question again replaces the first take.
    again = client.post(
        f"/api/mocks/{mock_id}/recordings",
        params={"card_id": card_id},
        content=b"OggS" + b"\x00" * 100,
        headers={"Content-Type": "audio/ogg"},
    )
    assert again.status_code == 201
    assert [r["type"] for r in client.get("/api/recordings").json()] == ["audio/ogg"]
    assert client.get(again.json()["url"]).content.startswith(b"OggS")

    assert client.delete(f"/api/recordings/{again.json()['id']}").status_code == 204
    assert client.get("/api/recordings").json() == []
    with bank.database.session() as session:
        assert session.exec(select(Recording)).all() == []


@pytest.mark.parametrize(
    ("content", "content_type", "status", "code"),
    [
        (b"hello", "text/plain", 415, "recording_not_audio"),
        (b"not really webm", "audio/webm", 415, "recording_bytes_mismatch"),
        (WEBM[:4] + b"\x00" * (8 * 1024 * 1024), "audio/webm", 413, "recording_too_large"),
        (b"", "audio/webm", 400, "recording_empty"),
    ],
)
def test_bad_recordings_are_refused_with_a_reason(client, content, content_type, status, code):
    url = start_mock(client, deck="mock")
    mock_id = url.rsplit("/", 1)[1]
    refused = client.post(
        f"/api/mocks/{mock_id}/recordings",
        params={"card_id": "line"},
        content=content,
        headers={"Content-Type": content_type},
    )
    assert (refused.status_code, refused.json()["code"]) == (status, code)
    assert client.get("/api/recordings").json() == []


def test_a_recording_belongs_to_a_question_of_the_session(client):
    url = start_mock(client, deck="notes")
    mock_id = url.rsplit("/", 1)[1]
    refused = client.post(
        f"/api/mocks/{mock_id}/recordings",
        params={"card_id": "line"},
        content=WEBM,
        headers={"Content-Type": "audio/webm"},
    )
    assert refused.status_code == 404
    assert (
        client.post(
            "/api/mocks/999/recordings",
            params={"card_id": "line"},
            content=WEBM,
            headers={"Content-Type": "audio/webm"},
        ).status_code
        == 404
    )


# Backups.


def mock_with_a_recording(client) -> tuple[str, str]:
    client.post("/api/interviews", json={"name": "Kernel team", "date": days(8), "tag": "gpu"})
    url = start_mock(client, deck="mock", count="1")
    page = client.get(url).text
    card_id = page.split('data-card-id="', 1)[1].split('"', 1)[0]
    mock_id = url.rsplit("/", 1)[1]
    kept = client.post(
        f"/api/mocks/{mock_id}/recordings",
        params={"card_id": card_id},
        content=WEBM,
        headers={"Content-Type": "audio/webm"},
    )
    assert kept.status_code == 201
    answer_page = client.get(f"{url}?phase=answer&t0={int(START.timestamp() * 1000)}").text
    form = {"card_id": card_id, "key": hidden(answer_page, "key"), "t0": hidden(answer_page, "t0")}
    assert client.post(f"{url}/answer", data={**form, "said": ["0"]}).status_code == 303
    return url, card_id


def test_backups_carry_interviews_mock_results_and_recordings(client, second):
    _, card_id = mock_with_a_recording(client)
    backup = client.get("/backup.json")
    doc = backup.json()
    assert [i["name"] for i in doc["interviews"]] == ["Kernel team"]
    assert [len(m["answers"]) for m in doc["mocks"]] == [1]
    assert doc["mocks"][0]["answers"][0]["points_said"] == [0]
    assert [(r["card_id"], r["type"]) for r in doc["recordings"]] == [(card_id, "audio/webm")]
    assert doc["recordings_left_out"] == 0

    assert restore(second, backup.text).status_code == 200
    assert [i["name"] for i in second.get("/api/interviews").json()] == ["Kernel team"]
    kept = second.get("/api/recordings").json()
    assert [r["card_id"] for r in kept] == [card_id]
    assert second.get(kept[0]["url"]).content == WEBM
    summary = second.get(f"/interview/mock/{kept[0]['mock_id']}/summary").text
    assert "Coverage <b>1/3</b>" in summary
    # Restoring the same backup again adds nothing.
    assert restore(second, backup.text).status_code == 200
    assert len(second.get("/api/interviews").json()) == 1
    assert len(second.get("/api/recordings").json()) == 1
    assert second.get("/backup.json").json()["mocks"][0]["answers"] == doc["mocks"][0]["answers"]


def test_recordings_over_the_budget_are_left_out_and_counted(client, monkeypatch):
    from app.backup import interviews

    mock_with_a_recording(client)
    monkeypatch.setattr(interviews, "RECORDINGS_BUDGET", 100)
    doc = client.get("/backup.json").json()
    assert doc["recordings"] == []
    assert doc["recordings_left_out"] == 1
    assert len(doc["mocks"]) == 1


def test_a_backup_with_a_bad_recording_restores_nothing(client, second, find):
    mock_with_a_recording(client)
    doc = client.get("/backup.json").json()
    doc["recordings"][0]["type"] = "text/plain"
    refused = restore(second, json.dumps(doc))
    assert refused.status_code == 400
    assert "recordings[0]: recordings must be audio" in refused.text
    assert second.get("/api/interviews").json() == []
