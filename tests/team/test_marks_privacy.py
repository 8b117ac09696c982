"""Suspend, bury, flag and leech marks, leech settings, custom study and today's recap are
each member's own."""


def test_one_members_marks_never_reach_another(browser):
    member, other = browser("member"), browser("other")
    assert member.post_json("/api/cards/kernel/suspend").status_code == 200
    assert member.post_json("/api/cards/fusion/flag", {"flag": 1}).status_code == 200
    assert member.post_json("/api/cards/gemm/bury").status_code == 200

    assert member.get("/api/study/next", params={"deck": "gpu"}).json()["id"] == "fusion"
    assert other.get("/api/study/next", params={"deck": "gpu"}).json()["id"] == "kernel"
    theirs = other.get("/api/cards/kernel/marks").json()
    assert (theirs["suspended"], theirs["flag"], theirs["buried"]) == (False, 0, False)
    for kind in ("suspended", "buried", "flagged", "leech"):
        assert other.get(f"/api/marks/{kind}").json() == []
    assert [c["card_id"] for c in member.get("/api/marks/flagged").json()] == ["fusion"]
    assert 'id="marked-kernel"' not in other.get("/marks/suspended").text
    assert 'id="marked-kernel"' in member.get("/marks/suspended").text

    # Another member's unsuspend changes only their own (absent) mark.
    assert other.post_json("/api/cards/kernel/unsuspend").status_code == 200
    assert member.get("/api/cards/kernel/marks").json()["suspended"] is True
    assert other.post_json("/api/cards/nope/suspend").status_code == 404


def test_card_actions_need_an_account_and_the_csrf_token(browser):
    anonymous = browser(None)
    assert anonymous.post_json("/api/cards/kernel/suspend").status_code == 401
    member = browser("member")
    forged = member.client.post("/cards/kernel/suspend", data={"next": "/"})
    assert forged.status_code == 403
    assert member.get("/api/cards/kernel/marks").json()["suspended"] is False


def test_custom_study_and_todays_recap_are_each_members_own(browser, db):
    member, other = browser("member"), browser("other")
    for who in (member, other):
        form = {"desired_retention": "0.9", "new_per_day": "1", "max_reviews_per_day": "200"}
        form |= {"rollover_hour": "4", "timezone": "UTC"}
        assert who.submit("/settings", form).status_code == 303
    raised = member.post_json("/api/study/new-today", {"count": 2}).json()
    assert (raised["extra_today"], raised["new_limit"], raised["counts"]["new"]) == (2, 3, 3)
    assert other.get("/api/study/next").json()["counts"]["new"] == 1
    assert (db.learner("other").extra_new, db.learner("other").extra_new_day) == (0, None)

    assert member.post_json("/api/reviews", {"card_id": "kernel", "rating": 1}).status_code == 200
    mine, theirs = member.get("/api/study/today").json(), other.get("/api/study/today").json()
    assert (mine["ratings"], mine["again"], mine["failed_today"]) == (1, 1, ["kernel"])
    assert (theirs["cards"], theirs["ratings"], theirs["failed_today"]) == (0, 0, [])
    assert theirs["next_due"] is None

    # The failed card practised from member's done page is member's run: other gets a 404.
    run = member.submit("/practice", {"cards": "kernel"}).headers["location"]
    assert other.get(run).status_code == 404


def test_leech_settings_and_held_cards_are_each_members_own(browser, db):
    member, other = browser("member"), browser("other")
    form = {"desired_retention": "0.9", "new_per_day": "20", "max_reviews_per_day": "200"}
    form |= {"rollover_hour": "4", "timezone": "UTC", "leech_threshold": "1"}
    assert member.submit("/settings", form).status_code == 303
    assert db.learner("other").leech_threshold == 8
    # A first lapse is no lapse for a new card; a review gone wrong is.
    for who in (member, other):
        for rating in (4, 1):
            rated = who.post_json("/api/reviews", {"card_id": "kernel", "rating": rating})
    assert rated.json()["leech"] is False  # other's, at threshold 8
    assert [c["card_id"] for c in member.get("/api/marks/leech").json()] == ["kernel"]
    assert other.get("/api/marks/leech").json() == []
    assert other.get("/api/cards/kernel/marks").json()["suspended"] is False

    # Member's suspended and buried cards stay in other's practice.
    member.post_json("/api/cards/fusion/bury")
    practice = {"deck": "gpu", "order": "content"}
    mine = member.get(member.submit("/practice", practice).headers["location"]).text
    theirs = other.get(other.submit("/practice", practice).headers["location"]).text
    assert 'data-card-id="kernel"' in theirs  # the first in content order
    assert 'data-card-id="gemm"' in mine  # past the suspended leech and the buried card
