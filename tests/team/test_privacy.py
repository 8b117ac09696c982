"""One shared bank, a private schedule, review log, practice and settings for every learner."""

import csv
import io
import json

from app.infra.models import CardState


def test_another_members_practice_session_is_missing(browser):
    member, other = browser("member"), browser("other")
    started = member.submit("/practice", {"cards": "kernel,fusion"})
    assert started.status_code == 303
    run = started.headers["location"]  # /practice/<id>
    assert member.get(run).status_code == 200

    assert other.get(run).status_code == 404
    assert other.get(f"{run}/summary").status_code == 404
    refused = other.submit(f"{run}/rate", {"card_id": "kernel", "rating": "1"})
    assert refused.status_code == 404
    # The run did not move: member still sees its first card.
    assert "What is a kernel?" in member.get(run).text


def test_the_api_only_shows_the_callers_own_schedule(browser, db):
    member, other = browser("member"), browser("other")
    rated = member.post_json("/api/reviews", {"card_id": "kernel", "rating": 4})
    assert rated.status_code == 200
    assert rated.json()["state"] == "review"

    mine = member.get("/api/study/next", params={"deck": "gpu"}).json()
    theirs = other.get("/api/study/next", params={"deck": "gpu"}).json()
    assert mine["id"] == "fusion"  # kernel is scheduled days ahead for member
    assert (mine["counts"]["new"], mine["counts"]["review"]) == (2, 0)
    assert theirs["id"] == "kernel"  # still new for other
    assert theirs["counts"]["new"] == 3
    assert theirs["queue"] == "new"

    decks = {d["slug"]: d for d in other.get("/api/decks").json()}
    assert (decks["gpu"]["seen"], decks["gpu"]["new"]) == (0, 3)
    assert {d["slug"]: d["seen"] for d in member.get("/api/decks").json()}["gpu"] == 1

    stats = other.get("/api/stats").json()
    assert sum(day["count"] for day in stats["reviews"]) == 0
    assert stats["states"]["new"] == 5
    assert stats["time"]["total_ms"] == 0
    assert sum(day["count"] for day in member.get("/api/stats").json()["reviews"]) == 1

    # The card page shows each learner their own state of the same card.
    assert "State: Review" in member.get("/cards/kernel").text
    assert "State: New" in other.get("/cards/kernel").text


def test_undo_and_downloads_are_per_learner(browser, db):
    member, other = browser("member"), browser("other")
    assert member.post_json("/api/reviews", {"card_id": "paged", "rating": 3}).status_code == 200

    # other has nothing to undo; member's rating stays.
    assert other.post_json("/api/reviews/undo").status_code == 404
    assert [r.card_id for r in db.reviews("member") if r.undone_at is None] == ["paged"]

    backup = json.loads(other.get("/backup.json").content)
    assert (backup["states"], backup["reviews"]) == ([], [])
    rows = list(csv.reader(io.StringIO(other.get("/backup/log.csv").content.decode("utf-8-sig"))))
    assert len(rows) == 1  # the header only
    assert len(json.loads(member.get("/backup.json").content)["reviews"]) == 1


def test_study_settings_are_per_learner(browser, db):
    member, other = browser("member"), browser("other")
    form = {
        "desired_retention": "0.8",
        "new_per_day": "5",
        "max_reviews_per_day": "50",
        "rollover_hour": "3",
        "timezone": "Asia/Shanghai",
    }
    assert member.submit("/settings", form).status_code == 303
    assert db.learner("member").new_per_day == 5
    assert db.learner("other").new_per_day == 20
    zone = 'id="timezone" list="zones" value="Asia/Shanghai"'  # the zone input, not the list
    assert zone in member.get("/settings").text
    assert zone not in other.get("/settings").text


def test_restoring_a_backup_only_touches_the_callers_schedule(browser, db):
    member, other = browser("member"), browser("other")
    member.post_json("/api/reviews", {"card_id": "kernel", "rating": 3})
    backup = member.get("/backup.json").content
    restored = other.post(
        "/backup/restore",
        data={"csrf_token": other.csrf},
        files={"file": ("backup.json", backup, "application/json")},
    )
    assert restored.status_code == 200
    # other now has a copy of the history; member's own rows are unchanged.
    assert len(db.reviews("other")) == 1
    assert len(db.reviews("member")) == 1
    assert db.count(CardState, learner_id=db.learner("member").id) == 1
