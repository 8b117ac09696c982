"""Invites: single-use, expiring sign-up links made by an administrator; open sign-up is opt-in."""

from urllib.parse import urlparse

import pytest

from app.content.bank.sync import import_content
from app.infra.models import Invite, Learner
from tests.support.pages import text_of
from tests.support.team import NEW_PASSWORD, csrf_token

pytestmark = pytest.mark.storage


def create_invite(admin, **form):
    """Create an invite through the users page; its path (/invite/…), read from the page."""
    response = admin.submit("/admin/invites", form)
    assert response.status_code == 200
    url = text_of(response.text, "invite-url")
    assert url and url.startswith("http://testserver/invite/"), url
    return urlparse(url).path


def sign_up(browser, path, name):
    return browser.post(path, data={"name": name, "password": NEW_PASSWORD})


def test_an_invite_signs_up_one_member(browser, db):
    path = create_invite(browser("admin"))
    newcomer = browser()
    assert newcomer.get(path).status_code == 200
    response = sign_up(newcomer, path, "dana")
    assert (response.status_code, response.headers["location"]) == (303, "/")
    # Signed in straight away, as a member.
    assert "dana" in newcomer.get("/account").text
    assert newcomer.get("/admin/team").status_code == 403
    assert not db.learner("dana").is_admin
    assert db.count(Invite, used_by=db.learner("dana").id) == 1
    # The new account signs in with its password later.
    browser().sign_in("dana", NEW_PASSWORD)


def test_a_signed_in_browser_can_use_an_invite(browser, db):
    admin = browser("admin")
    path = create_invite(admin)
    page = admin.get(path)  # say, the admin trying the link out
    token = csrf_token(page.text)
    assert token == admin.csrf
    response = admin.post(
        path, data={"name": "dana", "password": NEW_PASSWORD, "csrf_token": token}
    )
    assert (response.status_code, response.headers["location"]) == (303, "/")
    assert "dana" in admin.get("/account").text


def test_an_admin_invite_makes_an_administrator(browser, db):
    path = create_invite(browser("admin"), is_admin="true")
    assert sign_up(browser(), path, "erin").status_code == 303
    assert db.learner("erin").is_admin


def test_an_invite_works_once(browser, db):
    path = create_invite(browser("admin"))
    assert sign_up(browser(), path, "dana").status_code == 303
    second = browser()
    assert second.get(path).status_code == 409
    response = sign_up(second, path, "eve")
    assert response.status_code == 409
    assert "already been used" in response.text
    assert second.cookie is None
    assert db.count(Learner, name="eve") == 0


def test_a_taken_name_does_not_use_up_the_invite(browser, db):
    path = create_invite(browser("admin"))
    response = sign_up(browser(), path, "member")
    assert response.status_code == 409
    assert "already exists" in response.text
    assert sign_up(browser(), path, "dana").status_code == 303


def test_an_invite_expires_after_invite_days(make_app, users, browser, clock, db):
    short = make_app(invite_days=2)
    path = create_invite(browser("admin", app=short))
    clock.advance(days=2, minutes=-1)
    assert browser(app=short).get(path).status_code == 200
    clock.advance(minutes=1)
    late = browser(app=short)
    assert late.get(path).status_code == 409
    response = sign_up(late, path, "dana")
    assert response.status_code == 409
    assert "expired" in response.text
    assert db.count(Learner, name="dana") == 0


def test_the_invite_list_shows_open_invites_only(browser, clock):
    admin = browser("admin")
    used = create_invite(admin)
    create_invite(admin)
    create_invite(admin)
    sign_up(browser(), used, "dana")
    assert "(2)" in admin.get("/admin/users").text
    clock.advance(days=7)
    assert "(0)" in admin.get("/admin/users").text


def test_an_unknown_invite_is_missing(browser):
    nobody = browser()
    assert nobody.get("/invite/not-a-real-token").status_code == 404
    assert sign_up(nobody, "/invite/not-a-real-token", "dana").status_code == 404


def test_members_cannot_create_invites(browser, db):
    member = browser("member")
    assert member.submit("/admin/invites").status_code == 403
    assert member.submit("/admin/invites", {"is_admin": "true"}).status_code == 403
    assert db.count(Invite) == 0
    assert browser().post("/admin/invites").status_code == 303  # nobody: to the sign-in page
    assert db.count(Invite) == 0


def test_open_sign_up_is_off_by_default(browser, db):
    nobody = browser()
    assert nobody.get("/signup").status_code == 400
    response = nobody.post("/signup", data={"name": "dana", "password": NEW_PASSWORD})
    assert response.status_code == 400
    assert "invitation only" in response.text
    assert db.count(Learner, name="dana") == 0


def test_open_sign_up_when_enabled(make_app, app, bank_dir, browser, db):
    open_app = make_app(open_signup=True)
    import_content(bank_dir, open_app.state.database)
    nobody = browser(app=open_app)
    assert nobody.get("/signup").status_code == 200
    response = nobody.post("/signup", data={"name": "dana", "password": NEW_PASSWORD})
    assert (response.status_code, response.headers["location"]) == (303, "/")
    assert nobody.get("/").status_code == 200
    assert not db.learner("dana").is_admin
    # Names and passwords are still checked.
    response = browser(app=open_app).post("/signup", data={"name": "x", "password": "short"})
    assert response.status_code == 400
    response = browser(app=open_app).post(
        "/signup", data={"name": "Dana", "password": NEW_PASSWORD}
    )
    assert response.status_code == 409
    assert db.count(Learner, name="Dana") == 0
