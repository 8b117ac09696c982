"""Suspend, bury, flag and leech marks are each member's own."""


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
