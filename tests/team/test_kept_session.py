"""Whose page it is, for the service worker: the Qbank-Session header (static/sw.js)."""

import pytest
from sqlmodel import select

from app.infra.models import AuthSession
from app.web.auth import SESSION_COOKIE
from tests.support.team import NEW_PASSWORD, PASSWORDS

pytestmark = pytest.mark.storage

HEADER = "qbank-session"
# START is noon UTC and members' days roll over at 04:00 UTC: 16 hours of the study day left.
DAY_LEFT = 16 * 3600


def kept(response) -> tuple[str, int]:
    """The session id and the seconds a page may be kept, from `response`'s header."""
    value = response.headers[HEADER]
    kept_id, max_age = value.split("; ")
    assert max_age.startswith("max-age="), value
    return kept_id, int(max_age.removeprefix("max-age="))


def test_a_members_pages_name_her_session_until_the_end_of_her_study_day(browser, db):
    member = browser("member")
    pages = [member.get(path) for path in ("/study", "/stats", "/settings", "/account")]
    assert {response.status_code for response in pages} == {200}
    ids = {kept(response)[0] for response in pages}
    assert len(ids) == 1
    assert {kept(response)[1] for response in pages} == {DAY_LEFT}
    # An opaque name: neither the cookie's token nor the hash the database keeps of it.
    (kept_id,) = ids
    assert kept_id not in member.cookie
    mine = select(AuthSession).where(AuthSession.learner_id == db.learner("member").id)
    with db.database.session() as session:
        stored = session.exec(mine).all()
    assert stored and all(kept_id not in row.id for row in stored)
    assert 'data-session="none"' not in pages[0].text


def test_each_session_has_its_own_id(browser):
    laptop, phone, other = browser("member"), browser("member"), browser("other")
    names = {kept(device.get("/study"))[0] for device in (laptop, phone, other)}
    assert len(names) == 3


def test_pages_are_kept_no_longer_than_the_session(browser, clock):
    member = browser("member")
    clock.advance(days=13, hours=23, minutes=30)  # 14 days a session: half an hour left
    assert kept(member.get("/study"))[1] == 1800


def test_nobody_signed_in_says_none(browser):
    nobody = browser()
    page = nobody.get("/login")
    assert page.headers[HEADER] == "none"
    assert 'data-session="none"' in page.text


@pytest.mark.parametrize("ended_by", ["password", "disabled", "expiry"])
def test_a_session_ended_elsewhere_answers_none(browser, clock, ended_by):
    laptop = browser("member")
    assert kept(laptop.get("/study"))[1] == DAY_LEFT
    if ended_by == "password":
        phone = browser("member")
        form = {"old_password": PASSWORDS["member"], "new_password": NEW_PASSWORD}
        assert phone.submit("/account/password", form).status_code == 303
    elif ended_by == "disabled":
        admin = browser("admin")
        assert admin.submit("/admin/users/member/disable").status_code == 303
    else:
        clock.advance(days=15)
    response = laptop.get("/study")
    assert response.status_code == 303
    assert laptop.client.cookies.get(SESSION_COOKIE)  # the browser still holds the cookie …
    login = laptop.get(response.headers["location"])
    assert login.headers[HEADER] == "none"  # … and the page it is sent to says nobody is in
    assert laptop.get("/api/study/next").status_code == 401


def test_a_scripts_token_names_no_session(bearer, api_token):
    response = bearer(api_token("member")).get("/study")
    assert HEADER not in response.headers


def test_the_sign_in_page_of_a_member_names_her_session(browser):
    member = browser("member")
    assert kept(member.get("/login"))[0] == kept(member.get("/study"))[0]
