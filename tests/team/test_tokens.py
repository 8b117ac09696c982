"""Personal API tokens: created on /account, shown once, used as Bearer tokens, revocable."""

import re

import pytest
from sqlmodel import select

from app.infra.models import ApiToken
from tests.support.pages import text_of
from tests.support.team import NEW_PASSWORD, PASSWORDS

pytestmark = pytest.mark.storage


def create_token(member, name="script"):
    response = member.submit("/account/tokens", {"name": name})
    assert response.status_code == 200
    token = text_of(response.text, "new-token")
    assert token and token.startswith("qb_"), token
    return token


def token_ids(page):
    return [int(n) for n in re.findall(r'action="/account/tokens/(\d+)/revoke"', page)]


def test_a_token_is_shown_once_and_stored_hashed(browser, db):
    member = browser("member")
    token = create_token(member, "laptop script")
    page = member.get("/account").text
    assert "laptop script" in page
    assert token[:10] in page  # its prefix, to recognise it
    assert token not in page
    assert text_of(page, "new-token") is None
    with db.database.session() as session:
        (row,) = session.exec(select(ApiToken))
    assert token not in (row.token_hash, row.prefix)
    assert row.learner_id == db.learner("member").id


def test_a_token_studies_as_its_owner(browser, bearer, db):
    token = create_token(browser("member"))
    script = bearer(token)
    card = script.get("/api/study/next", params={"deck": "notes"})
    assert card.status_code == 200
    assert card.json()["id"] == "paged"
    body = {"card_id": "paged", "rating": 3, "version": card.json()["version"]}
    rated = script.post("/api/reviews", json=body)
    assert rated.status_code == 200
    assert rated.json()["card_id"] == "paged"
    assert [r.card_id for r in db.reviews("member")] == ["paged"]
    assert db.reviews("other") == []
    assert script.get("/api/study/next", params={"deck": "notes"}).json()["id"] == "kv"


def test_a_revoked_token_stops_working(browser, bearer):
    member = browser("member")
    token, kept = create_token(member, "old"), create_token(member, "kept")
    script = bearer(token)
    assert script.get("/api/study/next").status_code == 200
    first = token_ids(member.get("/account").text)[0]
    response = member.submit(f"/account/tokens/{first}/revoke")
    assert (response.status_code, response.headers["location"]) == (303, "/account?done=revoked")
    refused = script.get("/api/study/next")
    assert (refused.status_code, refused.json()["code"]) == (401, "token_invalid")
    assert script.post("/api/reviews", json={"card_id": "kernel", "rating": 3}).status_code == 401
    assert bearer(kept).get("/api/study/next").status_code == 200
    assert first not in token_ids(member.get("/account").text)


def test_another_members_token_cannot_be_revoked(browser, bearer):
    member, other = browser("member"), browser("other")
    token = create_token(member)
    (token_id,) = token_ids(member.get("/account").text)
    assert other.submit(f"/account/tokens/{token_id}/revoke").status_code == 404
    assert bearer(token).get("/api/study/next").status_code == 200


def test_unknown_tokens_are_refused(bearer):
    for token in ("qb_not-a-token", "", "Bearer"):
        response = bearer(token).get("/api/study/next")
        assert response.status_code == 401


def test_a_token_cannot_change_the_password(browser, bearer):
    token = create_token(browser("member"))
    form = {"old_password": PASSWORDS["member"], "new_password": NEW_PASSWORD}
    response = bearer(token).post("/account/password", data=form)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login")
    browser().sign_in("member")  # the password is unchanged


def test_a_token_outlives_a_password_change_until_revoked(browser, bearer):
    # Tokens are credentials of their own (docs/deploy.md): a script keeps working when its
    # owner changes the password, and stops when the token is revoked.
    member = browser("member")
    script = bearer(create_token(member))
    changed = member.submit(
        "/account/password", {"old_password": PASSWORDS["member"], "new_password": NEW_PASSWORD}
    )
    assert changed.status_code == 303
    assert script.get("/api/study/next").status_code == 200
    member.submit(f"/account/tokens/{token_ids(member.get('/account').text)[0]}/revoke")
    assert script.get("/api/study/next").status_code == 401
