"""Login throttling: 5 failures in 15 minutes per account and per client, kept in the database."""

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import pytest
from argon2 import PasswordHasher

from app.accounts import members, throttle
from app.infra.db import create_schema, make_engine
from app.infra.models import AuthSession
from app.main import build_routes
from tests.support import http
from tests.support.team import PASSWORDS, SECRET

pytestmark = pytest.mark.storage

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


def test_refused_attempts_are_not_counted_again(browser, db, clock):
    for n in range(5):
        browser(client=address(n)).login("member", WRONG)
    for _ in range(3):
        assert browser(client=address(9)).login("member", WRONG).status_code == 429
    with db.database.session() as session:
        assert throttle.attempts(session, key="account:member", now=clock.now) == 5
        assert throttle.attempts(session, key="client:10.0.0.9", now=clock.now) == 0


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
    assert second.state.database is not app.state.database
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


class CountingHasher(PasswordHasher):
    """argon2id at the lowest cost that counts the passwords it checks."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)
        self.checks = 0
        self._lock = threading.Lock()

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        with self._lock:
            self.checks += 1
        return super().verify(hash, password)


@pytest.fixture
def hasher(monkeypatch: pytest.MonkeyPatch) -> CountingHasher:
    counting = CountingHasher()
    monkeypatch.setattr(members, "_hasher", counting)
    return counting


def test_30_parallel_wrong_passwords_over_two_processes_get_5_checks(
    make_app, app, browser, db, hasher
):
    second = make_app(second=True)
    for each in (app, second):
        build_routes(each)  # the burst comes from many clients at once, as to a server
    clients = [browser(client=address(n), app=(app, second)[n % 2]) for n in range(30)]
    hasher.checks = 0
    with ThreadPoolExecutor(30) as pool:
        statuses = list(pool.map(lambda c: c.login("member", WRONG).status_code, clients))
    assert sorted(set(statuses)) == [401, 429]
    assert statuses.count(401) == hasher.checks == throttle.LIMIT
    assert browser(client=address(99)).login("member").status_code == 429
    assert hasher.checks == throttle.LIMIT
    assert db.sessions("member") == 0


def test_100_parallel_attempts_from_one_address_get_5_checks(app, browser, db, hasher):
    build_routes(app)  # the burst comes from many clients at once, as to a server
    hasher.checks = 0
    names = [f"user-{n}" for n in range(97)] + ["member", "other", "admin"]
    clients = [browser(client=address(7)) for _ in names]
    with ThreadPoolExecutor(32) as pool:
        statuses = list(
            pool.map(
                lambda pair: pair[0].login(pair[1], WRONG).status_code,
                zip(clients, names, strict=True),
            )
        )
    assert statuses.count(401) == hasher.checks == throttle.LIMIT
    assert statuses.count(429) == 100 - throttle.LIMIT


def test_a_right_password_gives_its_place_back(browser):
    for _ in range(throttle.LIMIT + 2):
        assert browser(client=address(3)).login("member").status_code == 303
    for _ in range(throttle.LIMIT - 1):
        assert browser(client=address(3)).login("member", WRONG).status_code == 401
    assert browser(client=address(3)).login("member").status_code == 303


@pytest.mark.parametrize("who", ["unknown", "disabled", "member"])
def test_every_failed_sign_in_costs_one_password_check(browser, hasher, who):
    if who == "disabled":
        assert browser("admin").submit("/admin/users/other/disable").status_code == 303
    name = {"unknown": "nobody-here", "disabled": "other", "member": "member"}[who]
    before = hasher.checks
    response = browser(client=address(5)).login(name, PASSWORDS.get(name, WRONG) + "-wrong")
    assert response.status_code == 401
    assert "wrong user name or password" in response.text
    assert hasher.checks - before == 1
    # The disabled account's right password is checked too, and still refused.
    if who == "disabled":
        assert browser(client=address(6)).login("other").status_code == 401
        assert hasher.checks - before == 2


def test_password_checks_wait_their_turn(monkeypatch, browser, hasher):
    # With every slot taken, a sign-in waits and then says the server is busy; nothing counted.
    monkeypatch.setattr(members, "VERIFY_WAIT_SECONDS", 0.01)
    held = [members._verifications.acquire() for _ in range(members.CONCURRENT_VERIFICATIONS)]
    try:
        response = browser(client=address(4)).login("member")
    finally:
        for _ in held:
            members._verifications.release()
    assert response.status_code == 503
    assert "busy" in response.text
    assert hasher.checks == 0
    assert browser(client=address(4)).login("member").status_code == 303


class GatedHasher(CountingHasher):
    """Counts the checks running at once, and holds each until as many run as may.

    Without a bound every check of a burst would pile in here together; with one, each waits
    for a full house of CONCURRENT_VERIFICATIONS (or for the rest of the burst).
    """

    def __init__(self, expected: int) -> None:
        super().__init__()
        self.expected, self.running, self.peak, self.finished = expected, 0, 0, 0
        self._turn = threading.Condition()

    def _full_house(self) -> bool:
        left = self.expected - self.finished
        return self.running >= min(members.CONCURRENT_VERIFICATIONS, left)

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        with self._turn:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self._turn.notify_all()
            self._turn.wait_for(self._full_house, timeout=10)
        try:
            return super().verify(hash, password)
        finally:
            with self._turn:
                self.running -= 1
                self.finished += 1
                self._turn.notify_all()


def test_30_parallel_sign_ins_over_two_apps_run_at_most_4_password_checks_at_once(
    monkeypatch, make_app, app, browser
):
    # Unknown accounts from their own addresses: no throttle stops them, each costs one check
    # (the dummy hash), and each check holds ~64 MiB with the real parameters.
    second = make_app(second=True)
    for each in (app, second):
        build_routes(each)  # the burst comes from many clients at once, as to a server
    gated = GatedHasher(expected=30)
    monkeypatch.setattr(members, "_hasher", gated)
    clients = [browser(client=address(n), app=(app, second)[n % 2]) for n in range(30)]
    with ThreadPoolExecutor(30) as pool:
        statuses = list(
            pool.map(lambda n: clients[n].login(f"nobody-{n}", WRONG).status_code, range(30))
        )
    assert statuses == [401] * 30
    assert gated.checks == 30
    assert gated.peak == members.CONCURRENT_VERIFICATIONS


def test_throttling_holds_in_a_real_server_with_two_workers(
    database, database_url, bank_dir, live_server
):
    # The same burst against `qbank serve --workers 2`, with a different X-Forwarded-For on
    # each request: forwarded addresses are believed from no one by default.
    engine = make_engine(database_url)
    create_schema(engine)
    with database.session() as session:
        for name, password in PASSWORDS.items():
            members.create_user(session, name=name, password=password, database=database)
    engine.dispose()
    env = {"QBANK_MODE": "team", "QBANK_SECRET_KEY": SECRET}
    server = live_server(database_url, bank_dir, workers=2, env=env)

    def attempt(n: int) -> int:
        form = {"name": "member", "password": WRONG}
        headers = {"X-Forwarded-For": f"10.9.0.{n}"}
        with http.client(server.url, timeout=60) as client:
            return client.post("/login", data=form, headers=headers).status_code

    with ThreadPoolExecutor(30) as pool:
        statuses = list(pool.map(attempt, range(30)))
    assert statuses.count(401) <= throttle.LIMIT
    assert statuses.count(429) >= 30 - throttle.LIMIT
    assert set(statuses) <= {401, 429}
    with http.client(server.url, timeout=60) as client:
        right = {"name": "member", "password": PASSWORDS["member"]}
        assert client.post("/login", data=right).status_code == 429
        # Every attempt came from 127.0.0.1, whatever it forwarded: that address is spent too.
        other = {"name": "other", "password": PASSWORDS["other"]}
        response = client.post("/login", data=other, headers={"X-Forwarded-For": "10.9.9.9"})
        assert response.status_code == 429
