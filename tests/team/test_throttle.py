"""Login throttling: 5 failures in 15 minutes per account and per client, kept in the database."""

from app.models import AuthSession, LoginFailure

WRONG = "not-the-password"


def address(n: int) -> tuple[str, int]:
    return (f"10.0.0.{n}", 40000)


def test_the_sixth_attempt_on_an_account_is_refused_from_any_address(browser, db):
    # Five failures for one account, each from its own address: only the account limit applies.
    for n in range(5):
        response = browser(client=address(n)).login("member", WRONG)
        assert response.status_code == 401
        assert "wrong user name or password" in response.text
    fresh = browser(client=address(99))
    response = fresh.login("member")  # the right password, from a new address
    assert response.status_code == 429
    assert "too many failed sign-ins" in response.text
    assert fresh.cookie is None
    assert db.sessions("member") == 0
    # Other accounts are unaffected.
    assert browser(client=address(98)).login("other").status_code == 303


def test_the_account_name_is_matched_without_case(browser):
    for n in range(5):
        assert browser(client=address(n)).login("MEMBER", WRONG).status_code == 401
    assert browser(client=address(99)).login("member").status_code == 429


def test_one_address_is_refused_after_five_failures_on_any_accounts(browser, db):
    attacker = browser(client=address(7))
    for name in ("member", "other", "admin", "nobody", "ghost"):
        assert attacker.login(name, WRONG).status_code == 401
    response = attacker.login("other")  # right password, an account with one failure
    assert response.status_code == 429
    assert db.sessions("other") == 0
    # The same account from another address still works: it has only one failure.
    assert browser(client=address(8)).login("other").status_code == 303


def test_refused_attempts_are_not_counted_again(browser, db):
    for n in range(5):
        browser(client=address(n)).login("member", WRONG)
    for _ in range(3):
        assert browser(client=address(9)).login("member", WRONG).status_code == 429
    assert db.count(LoginFailure) == 5


def test_failures_older_than_15_minutes_no_longer_count(browser, clock):
    client = browser(client=address(1))
    for _ in range(5):
        assert client.login("member", WRONG).status_code == 401
        clock.advance(seconds=10)
    # The first failure is 14:10 old after this, still inside the window.
    clock.advance(minutes=13, seconds=20)
    assert client.login("member").status_code == 429
    # Now the first failure is older than 15 minutes: four remain, below the limit.
    clock.advance(seconds=51)
    response = client.login("member")
    assert response.status_code == 303
    assert client.cookie is not None


def test_throttling_holds_across_processes(make_app, app, browser, db):
    # A second app with its own engine over the same database: another server process.
    second = make_app(second=True)
    assert second.state.engine is not app.state.engine
    for n in range(3):
        assert browser(client=address(n)).login("member", WRONG).status_code == 401
    for n in range(3, 5):
        assert browser(client=address(n), app=second).login("member", WRONG).status_code == 401
    assert browser(client=address(50), app=second).login("member").status_code == 429
    assert browser(client=address(51)).login("member").status_code == 429
    assert db.count(AuthSession) == 0


def test_a_disabled_account_cannot_sign_in(browser, db):
    admin = browser("admin")
    assert admin.submit("/admin/users/member/disable").status_code == 303
    response = browser().login("member")
    assert response.status_code == 401
    assert "wrong user name or password" in response.text  # no hint that the account exists
    assert db.sessions("member") == 0
