"""Sessions: signed HttpOnly cookies, logout, password changes, resets and disabled accounts."""

from http.cookies import SimpleCookie

import pytest
from argon2 import PasswordHasher, Type
from itsdangerous import URLSafeSerializer
from sqlmodel import select

from app.infra.models import AuthSession, Learner
from app.web.auth import SESSION_COOKIE
from tests.support.banks import commit
from tests.support.team import NEW_PASSWORD, PASSWORDS, PRODUCTION_HASHER, SECRET, csrf_token

pytestmark = pytest.mark.storage


def session_cookie(response):
    """The Set-Cookie attributes of the session cookie in `response`."""
    for header in response.headers.get_list("set-cookie"):
        cookie = SimpleCookie()
        cookie.load(header)
        if SESSION_COOKIE in cookie:
            return cookie[SESSION_COOKIE]
    raise AssertionError(f"no {SESSION_COOKIE} cookie set")


def signed_in(browser):
    """Whether `browser`'s cookie still opens a page and an API call."""
    page, api = browser.get("/"), browser.get("/api/decks")
    assert (page.status_code == 200) == (api.status_code == 200), (page, api)
    if page.status_code != 200:
        assert page.headers["location"] == "/login?next=%2F"
        assert api.status_code == 401
    return page.status_code == 200


def with_cookie(browser, value):
    """A fresh browser holding `value` as its session cookie."""
    fresh = browser()
    fresh.client.cookies.set(SESSION_COOKIE, value)
    return fresh


def test_logout_ends_the_session(browser, db):
    member = browser("member")
    cookie = member.cookie
    response = member.submit("/logout")
    assert (response.status_code, response.headers["location"]) == (303, "/login")
    # The browser drops what it kept for the member (tests/browser/test_shared_device.py).
    assert response.headers["clear-site-data"] == '"cache", "storage"'
    assert member.cookie is None  # the cookie is cleared …
    assert db.sessions("member") == 0  # … and the session is gone on the server
    assert not signed_in(with_cookie(browser, cookie))


def test_logout_ends_only_that_session(browser, db):
    phone, laptop = browser("member"), browser("member")
    phone.submit("/logout")
    assert not signed_in(phone)
    assert signed_in(laptop)
    assert db.sessions("member") == 1


def test_signing_in_again_while_signed_in_starts_a_new_session(browser, db):
    member = browser("member")
    first = member.cookie
    # The sign-in form of a signed-in browser carries its CSRF token (it was missing: 403) …
    token = csrf_token(member.get("/login").text)
    assert token == member.csrf
    assert member.login("other").status_code == 403  # … which is required
    response = member.login("member", csrf_token=token)
    # … and signing in no longer fails on SQLite's naive datetimes while purging sessions (500).
    assert (response.status_code, response.headers["location"]) == (303, "/")
    assert member.cookie != first
    assert signed_in(member)
    assert signed_in(with_cookie(browser, first))
    assert db.sessions("member") == 2


def test_a_signed_in_browser_can_switch_accounts(browser):
    shared = browser("member")
    token = csrf_token(shared.get("/login").text)
    assert shared.login("other", csrf_token=token).status_code == 303
    assert "other" in shared.get("/account").text


def test_expired_sessions_are_purged_at_the_next_sign_in(browser, clock, db):
    browser("member")
    clock.advance(days=15)
    browser("member")
    assert db.sessions("member") == 1


def test_changing_the_password_ends_the_other_sessions(browser, db):
    current, elsewhere, other = browser("member"), browser("member"), browser("other")
    response = current.submit(
        "/account/password",
        {"old_password": PASSWORDS["member"], "new_password": NEW_PASSWORD},
    )
    assert (response.status_code, response.headers["location"]) == (303, "/account?done=password")
    assert signed_in(current)
    assert current.refresh_csrf() == current.csrf  # the same session, the same token
    assert not signed_in(elsewhere)
    assert signed_in(other)
    assert db.sessions("member") == 1
    assert browser().login("member").status_code == 401  # the old password
    browser().sign_in("member", NEW_PASSWORD)


def test_a_wrong_current_password_changes_nothing(browser, db):
    current, elsewhere = browser("member"), browser("member")
    response = current.submit(
        "/account/password", {"old_password": "wrong-password", "new_password": NEW_PASSWORD}
    )
    assert response.status_code == 401
    assert "the current password is wrong" in response.text
    assert signed_in(current)
    assert signed_in(elsewhere)
    browser().sign_in("member")


def test_a_too_short_new_password_is_refused(browser):
    member = browser("member")
    response = member.submit(
        "/account/password", {"old_password": PASSWORDS["member"], "new_password": "short"}
    )
    assert response.status_code == 400
    browser().sign_in("member")


def test_an_admin_reset_ends_every_session_of_that_user(browser, db):
    phone, laptop, admin = browser("member"), browser("member"), browser("admin")
    response = admin.submit("/admin/users/member/password", {"password": NEW_PASSWORD})
    assert (response.status_code, response.headers["location"]) == (
        303,
        "/admin/users?done=password",
    )
    assert not signed_in(phone)
    assert not signed_in(laptop)
    assert db.sessions("member") == 0
    assert signed_in(admin)
    browser().sign_in("member", NEW_PASSWORD)


def test_a_disabled_user_is_signed_out_everywhere(browser, bearer, api_token, db):
    member = browser("member")
    script = bearer(api_token("member"))
    assert script.get("/api/study/next").status_code == 200
    admin = browser("admin")
    assert admin.submit("/admin/users/member/disable").status_code == 303
    assert not signed_in(member)
    assert script.get("/api/study/next").status_code == 401
    assert browser().login("member").status_code == 401
    assert db.learner("member").disabled

    # Enabled again: the old sessions stay ended; the password and the token work again.
    assert admin.submit("/admin/users/member/enable").status_code == 303
    assert not signed_in(member)
    browser().sign_in("member")
    assert script.get("/api/study/next").status_code == 200


def test_an_admin_cannot_disable_themselves(browser, db):
    admin = browser("admin")
    assert admin.submit("/admin/users/admin/disable").status_code == 400
    assert not db.learner("admin").disabled
    assert signed_in(admin)


def test_the_cookie_is_httponly_and_lax_but_not_secure_over_http(browser):
    response = browser().login("member")
    cookie = session_cookie(response)
    assert cookie["httponly"] is True
    assert cookie["samesite"].lower() == "lax"
    assert not cookie["secure"]
    assert cookie["path"] == "/"
    assert int(cookie["max-age"]) == 14 * 86400


def test_the_cookie_is_secure_over_https(browser):
    nobody = browser(base_url="https://testserver")
    cookie = session_cookie(nobody.login("member"))
    assert cookie["secure"] is True
    assert cookie["httponly"] is True
    assert cookie["samesite"].lower() == "lax"
    assert signed_in(nobody)


@pytest.mark.parametrize(("setting", "secure"), [(True, True), (False, False)])
def test_the_cookie_secure_setting_wins(make_app, users, browser, setting, secure):
    # True: behind a proxy that terminates TLS without forwarding the scheme. False: never.
    app = make_app(cookie_secure=setting)
    base_url = "http://testserver" if setting else "https://testserver"
    cookie = session_cookie(browser(app=app, base_url=base_url).login("member"))
    assert bool(cookie["secure"]) is secure


def test_the_session_days_setting_sets_the_lifetime(make_app, users, browser, clock):
    app = make_app(session_days=2)
    member = browser(app=app)
    assert int(session_cookie(member.login("member"))["max-age"]) == 2 * 86400
    clock.advance(days=2, minutes=-1)
    assert signed_in(member)
    clock.advance(minutes=1)
    assert not signed_in(member)


def test_a_tampered_cookie_is_rejected(browser):
    member = browser("member")
    value = member.cookie
    assert value is not None
    payload, signature = value.rsplit(".", 1)
    # Change the first character: the last one of base64 carries padding bits that may not count.
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    assert not signed_in(with_cookie(browser, f"{payload}.{flipped}"))
    assert not signed_in(with_cookie(browser, value[1:]))
    assert not signed_in(with_cookie(browser, "garbage"))
    assert signed_in(with_cookie(browser, value))  # the untouched cookie still works


def test_a_cookie_signed_with_another_key_is_rejected(browser):
    member = browser("member")
    token = URLSafeSerializer(SECRET, salt="qbank-session").loads(member.cookie)
    forged = URLSafeSerializer("another-secret-" + "y" * 32, salt="qbank-session").dumps(token)
    assert not signed_in(with_cookie(browser, forged))
    # A correctly signed token that is not a live session is rejected as well.
    unknown = URLSafeSerializer(SECRET, salt="qbank-session").dumps("no-such-session")
    assert not signed_in(with_cookie(browser, unknown))


def test_the_server_stores_session_tokens_hashed(browser, db):
    member = browser("member")
    token = URLSafeSerializer(SECRET, salt="qbank-session").loads(member.cookie)
    with db.database.session() as session:
        ids = [row.id for row in session.exec(select(AuthSession))]
    assert len(ids) == 1
    assert token not in ids[0]


def test_passwords_are_stored_as_argon2id(db, users):
    stored = db.learner("member").password_hash
    assert stored.startswith("$argon2id$")
    assert PASSWORDS["member"] not in stored


def test_production_hashing_is_argon2id_at_the_recommended_cost():
    # The tests hash cheaply (conftest.fast_hashing); what the app itself uses is checked here.
    assert PRODUCTION_HASHER.type is Type.ID
    assert PRODUCTION_HASHER.time_cost >= 2
    assert PRODUCTION_HASHER.memory_cost >= 19 * 1024  # KiB: OWASP's minimum for argon2id


def test_an_outdated_hash_is_replaced_at_sign_in(app, browser, db):
    outdated = PasswordHasher(time_cost=1, memory_cost=16, parallelism=1).hash("legacy-pass-1")
    with db.database.session() as session:
        session.add(Learner(name="legacy", password_hash=outdated))
        commit(session)
    browser().sign_in("legacy", "legacy-pass-1")
    upgraded = db.learner("legacy").password_hash
    assert upgraded != outdated
    assert upgraded.startswith("$argon2id$v=19$m=8,t=1,p=1$")  # the parameters in use now
    browser().sign_in("legacy", "legacy-pass-1")
