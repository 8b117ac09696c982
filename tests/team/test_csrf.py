"""CSRF: cookie-authenticated changes need the session's token; cross-site requests are refused."""

import pytest

from tests.support.team import PASSWORDS

SETTINGS_FORM = {
    "desired_retention": "0.8",
    "new_per_day": "7",
    "max_reviews_per_day": "70",
    "rollover_hour": "4",
    "timezone": "UTC",
}


@pytest.mark.parametrize("token", [None, "", "wrong-token"])
def test_a_form_without_the_right_token_changes_nothing(browser, db, token):
    member = browser("member")
    data = SETTINGS_FORM if token is None else {**SETTINGS_FORM, "csrf_token": token}
    response = member.post("/settings", data=data)
    assert response.status_code == 403
    assert "CSRF" in response.text
    assert db.learner("member").new_per_day == 20

    review = {"card_id": "kernel", "rating": "3"}
    if token is not None:
        review["csrf_token"] = token
    assert member.post("/study/review", data=review).status_code == 403
    assert db.reviews("member") == []


def test_a_form_with_the_token_works(browser, db):
    member = browser("member")
    response = member.submit("/settings", SETTINGS_FORM)
    assert (response.status_code, response.headers["location"]) == (303, "/settings?saved=1")
    assert db.learner("member").new_per_day == 7


def test_the_token_belongs_to_one_session(browser, db):
    member, other = browser("member"), browser("other")
    response = member.post("/settings", data={**SETTINGS_FORM, "csrf_token": other.csrf})
    assert response.status_code == 403
    assert db.learner("member").new_per_day == 20


def test_pages_carry_the_token_in_their_forms(browser):
    member = browser("member")
    page = member.get("/study").text
    assert f'name="csrf_token" value="{member.csrf}"' in page


def test_multipart_forms_are_checked_too(browser, db):
    member = browser("member")
    backup = member.get("/backup.json").content
    files = {"file": ("backup.json", backup, "application/json")}
    assert member.post("/backup/restore", files=files).status_code == 403
    response = member.post("/backup/restore", data={"csrf_token": member.csrf}, files=files)
    assert response.status_code == 200


def test_json_with_a_cookie_needs_the_header(browser, db):
    member = browser("member")
    body = {"card_id": "kernel", "rating": 3}
    assert member.post("/api/reviews", json=body).status_code == 403
    response = member.post_json("/api/reviews", body, headers={"X-CSRF-Token": "wrong"})
    assert (response.status_code, response.json()["code"]) == (403, "csrf_token")
    assert db.reviews("member") == []

    assert member.post_json("/api/reviews", body).status_code == 200
    assert [r.card_id for r in db.reviews("member")] == ["kernel"]


def test_bearer_tokens_need_no_csrf_token(api_token, bearer, db):
    script = bearer(api_token("member"))
    response = script.post("/api/reviews", json={"card_id": "kernel", "rating": 3})
    assert response.status_code == 200
    assert len(db.reviews("member")) == 1


def test_safe_methods_need_no_token(browser):
    assert browser("member").get("/settings").status_code == 200


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "http://testserver.evil.example", "null"]
)
def test_cross_site_requests_are_refused(browser, bearer, api_token, db, origin):
    member = browser("member")
    response = member.submit("/settings", SETTINGS_FORM, headers={"Origin": origin})
    assert response.status_code == 403
    assert 'data-code="cross_site"' in response.text
    assert db.learner("member").new_per_day == 20

    # Signing in from another site (login CSRF) is refused as well.
    nobody = browser()
    form = {"name": "member", "password": PASSWORDS["member"]}
    response = nobody.post("/login", data=form, headers={"Origin": origin})
    assert response.status_code == 403
    assert nobody.cookie is None

    script = bearer(api_token("member"))
    body = {"card_id": "kernel", "rating": 3}
    assert script.post("/api/reviews", json=body, headers={"Origin": origin}).status_code == 403
    assert db.reviews("member") == []


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_login_another_site_asked_for_is_refused(browser, db, site):
    nobody = browser()
    form = {"name": "member", "password": PASSWORDS["member"]}
    response = nobody.post("/login", data=form, headers={"Sec-Fetch-Site": site})
    assert response.status_code == 403
    assert nobody.cookie is None
    assert db.sessions("member") == 0


def test_same_origin_is_accepted(browser, db):
    member = browser("member")
    response = member.submit("/settings", SETTINGS_FORM, headers={"Origin": "http://testserver"})
    assert response.status_code == 303
    assert db.learner("member").new_per_day == 7


def test_signing_out_needs_the_token(browser, db):
    member = browser("member")
    assert member.post("/logout").status_code == 403
    assert db.sessions("member") == 1
    assert member.get("/").status_code == 200
