"""The learner's own zone and day boundary: on every page, in the study day, offered first."""

import copy
import json
import re
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from app.infra.models import Learner
from tests.support.banks import commit

pytestmark = pytest.mark.storage


def rate(client: TestClient, card_id: str, rating: int) -> dict:
    response = client.post("/api/reviews", json={"card_id": card_id, "rating": rating})
    assert response.status_code == 200, response.text
    return response.json()


def new_left(client: TestClient) -> int:
    response = client.get("/api/study/next")
    return response.json()["counts"]["new"] if response.status_code == 200 else 0


def test_a_learner_in_shanghai_gets_a_new_day_at_4_am_beijing_time(client, clock, bank):
    bank.configure(timezone="Asia/Shanghai", rollover_hour=4, new_per_day=1)
    clock.set_local("2025-03-11 03:30", "Asia/Shanghai")
    rate(client, "gemm-core", 4)
    assert new_left(client) == 0
    clock.set_local("2025-03-11 03:59", "Asia/Shanghai")
    assert new_left(client) == 0
    clock.set_local("2025-03-11 04:00", "Asia/Shanghai")  # 20:00 UTC the day before
    assert clock.now == datetime(2025, 3, 10, 20, 0, tzinfo=UTC)
    assert new_left(client) == 1


def test_changing_the_zone_moves_the_day_boundary(client, clock, bank):
    bank.configure(new_per_day=1)
    clock.set_local("2025-03-10 19:00", "UTC")  # 03:00 on the 11th in Beijing
    rate(client, "gemm-core", 4)
    clock.set_local("2025-03-10 21:00", "UTC")  # 05:00 on the 11th in Beijing
    assert new_left(client) == 0  # in UTC both fall in the study day of the 10th
    bank.configure(timezone="Asia/Shanghai")  # the 11th began at 04:00 Beijing, after the rating
    assert new_left(client) == 1


def test_times_on_the_card_page_are_in_the_learners_zone(client, clock, bank, find):
    bank.configure(timezone="Asia/Shanghai")
    rated = rate(client, "paged", 4)
    due = datetime.fromisoformat(rated["due"]).astimezone(UTC)
    page = client.get("/cards/paged")
    local = due.astimezone(__import__("zoneinfo").ZoneInfo("Asia/Shanghai"))
    assert local.strftime("%Y-%m-%d %H:%M") in page.text
    assert " UTC" not in page.text


def test_settings_list_the_zones_and_explain_the_day(client, find):
    page = client.get("/settings").text
    assert '<option value="Asia/Shanghai">' in page
    assert find(page, "timezone").attrs["list"] == "zones"
    assert "Your study day starts at this hour" in find(page, "rollover-help").text
    assert find(page, "retention-help").text.startswith("The chance you want")
    assert find(page, "new-help").text.startswith("Cards you meet for the first time")
    assert find(page, "reviews-help").text.startswith("The most reviews you get in a day")
    for field, help_id in (("new_per_day", "new-help"), ("max_reviews_per_day", "reviews-help")):
        assert f'name="{field}"' in page and f'aria-describedby="{help_id}"' in page
    form = {
        "desired_retention": "0.9",
        "new_per_day": "20",
        "max_reviews_per_day": "200",
        "rollover_hour": "4",
        "timezone": "Mars/Olympus",
    }
    refused = client.post("/settings", data=form)
    assert refused.status_code == 400
    assert "unknown time zone &#39;Mars/Olympus&#39;" in refused.text


def test_the_first_visit_offers_the_browsers_zone_until_one_is_chosen(client, bank, find):
    home = client.get("/").text
    offer = find(home, "zone-offer")
    assert offer is not None and offer.attrs["data-current"] == "UTC"
    assert re.search(r'<script type="module" src="/static/v/\w+/zone\.js"></script>', home)
    chosen = client.post(
        "/settings/timezone", data={"timezone": "Asia/Shanghai"}, headers={"Referer": "/"}
    )
    assert (chosen.status_code, chosen.headers["location"]) == (303, "/")
    assert bank.learner().timezone == "Asia/Shanghai"
    assert find(client.get("/").text, "zone-offer") is None
    bad = client.post("/settings/timezone", data={"timezone": "Nowhere/Land"})
    assert bad.status_code == 400


def test_leech_settings_are_saved_and_checked(client, bank):
    form = {
        "desired_retention": "0.9",
        "new_per_day": "20",
        "max_reviews_per_day": "200",
        "rollover_hour": "4",
        "timezone": "UTC",
        "leech_threshold": "5",
        "leech_action": "tag",
    }
    assert client.post("/settings", data=form).status_code == 303
    learner = bank.learner()
    assert (learner.leech_threshold, learner.leech_action) == (5, "tag")
    assert client.post("/settings", data=form | {"leech_action": "delete"}).status_code == 400
    assert client.post("/settings", data=form | {"leech_threshold": "-1"}).status_code == 400


def test_accept_language_q_values_are_honoured(app, clock):
    with TestClient(app, headers={"Accept-Language": "en;q=0.4, zh-CN;q=0.9"}) as client:
        assert '<html lang="zh-CN">' in client.get("/settings").text
    with TestClient(app, headers={"Accept-Language": "zh;q=0.2, en-GB"}) as client:
        assert '<html lang="en">' in client.get("/settings").text


def test_a_restored_zone_counts_as_chosen(client, bank, find):
    def restore(document: dict) -> None:
        upload = {"file": ("backup.json", json.dumps(document), "application/json")}
        assert client.post("/backup/restore", files=upload).status_code == 200

    def start_over() -> None:
        """As on a fresh install: the zone never chosen."""
        with bank.database.session() as session:
            learner = session.get(Learner, bank.learner().id)
            learner.timezone, learner.timezone_chosen = "UTC", False
            session.add(learner)
            commit(session)

    client.post("/settings/timezone", data={"timezone": "Asia/Shanghai"})
    backup = client.get("/backup.json").json()
    assert backup["learner"]["settings"]["timezone_chosen"] is True
    start_over()
    restore(backup)
    assert (bank.learner().timezone, bank.learner().timezone_chosen) == ("Asia/Shanghai", True)
    assert find(client.get("/").text, "zone-offer") is None

    # A backup from before the field: a zone other than UTC was chosen; UTC may be a default.
    older = copy.deepcopy(backup)
    del older["learner"]["settings"]["timezone_chosen"]
    start_over()
    restore(older)
    assert bank.learner().timezone_chosen is True
    older["learner"]["settings"]["timezone"] = "UTC"
    start_over()
    restore(older)
    assert find(client.get("/").text, "zone-offer") is not None
