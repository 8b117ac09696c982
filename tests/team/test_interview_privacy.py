"""Interviews, mock interviews and recordings are private: another member gets 404, always."""

from datetime import timedelta

from app.infra.models import Interview, MockSession, Recording
from tests.support.team import START

WEBM = b"\x1a\x45\xdf\xa3" + b"\x00" * 500


def test_another_members_interview_mock_and_recording_are_missing(browser, db):
    member, other = browser("member"), browser("other")
    day = (START + timedelta(days=9)).date().isoformat()
    interview = member.post_json("/api/interviews", {"name": "Kernel team", "date": day}).json()
    started = member.submit("/interview/mock", {"count": "2"})
    assert started.status_code == 303
    mock = started.headers["location"]
    mock_id = int(mock.rsplit("/", 1)[1])
    card_id = member.get(mock).text.split('data-card-id="', 1)[1].split('"', 1)[0]
    kept = member.client.post(
        f"/api/mocks/{mock_id}/recordings",
        params={"card_id": card_id},
        content=WEBM,
        headers={"Content-Type": "audio/webm", "X-CSRF-Token": member.csrf or ""},
    )
    assert kept.status_code == 201, kept.text
    recording = kept.json()

    # The other member sees none of it, and cannot tell it exists.
    assert other.get("/api/interviews").json() == []
    assert other.get("/api/recordings").json() == []
    assert other.get(f"/api/interviews/{interview['id']}/readiness").status_code == 404
    assert other.get(f"/interviews/{interview['id']}").status_code == 404
    headers = {"X-CSRF-Token": other.csrf or ""}
    assert (
        other.client.delete(f"/api/interviews/{interview['id']}", headers=headers).status_code
        == 404
    )
    assert other.get(mock).status_code == 404
    assert other.get(f"{mock}/summary").status_code == 404
    refused = other.submit(f"{mock}/answer", {"card_id": card_id, "key": "x", "t0": "0"})
    assert refused.status_code == 404
    assert other.get(recording["url"]).status_code == 404
    assert (
        other.client.delete(f"/api/recordings/{recording['id']}", headers=headers).status_code
        == 404
    )
    assert other.submit(f"/interview/recordings/{recording['id']}/delete").status_code == 404
    stolen = other.client.post(
        f"/api/mocks/{mock_id}/recordings",
        params={"card_id": card_id},
        content=WEBM,
        headers={"Content-Type": "audio/webm", **headers},
    )
    assert stolen.status_code == 404
    # An administrator is no exception: recordings are as private as schedules.
    admin = browser("admin")
    assert admin.get(recording["url"]).status_code == 404

    # Everything is still there for its owner.
    assert member.get(recording["url"]).content == WEBM
    assert db.count(Interview) == 1 and db.count(MockSession) == 1 and db.count(Recording) == 1
    assert member.get(f"/api/interviews/{interview['id']}/readiness").status_code == 200
