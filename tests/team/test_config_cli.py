"""Team mode's settings and command line: a real secret, loopback only in local mode, accounts."""

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from app import serve
from app.cli import main
from app.config import Settings, get_settings
from app.infra.models import Learner
from tests.support.team import NEW_PASSWORD, PASSWORDS


@pytest.fixture
def cli(database_url, bank_dir, monkeypatch):
    """`cli("user", "list", input=...)`: run qbank over the test's database."""
    monkeypatch.setenv("QBANK_DATABASE_URL", database_url)
    monkeypatch.setenv("QBANK_CONTENT_DIR", str(bank_dir))
    for name in ("QBANK_MODE", "QBANK_SECRET_KEY", "QBANK_HOST", "QBANK_PORT"):
        monkeypatch.delenv(name, raising=False)

    def run(*args, input=None, env=None):
        get_settings.cache_clear()  # the settings are read once per process, here once per call
        try:
            return CliRunner().invoke(main, list(args), input=input, env=env)
        finally:
            get_settings.cache_clear()

    return run


@pytest.fixture
def started(monkeypatch):
    """Calls that would bind a port or touch the database when serving; recorded, not made."""
    calls = []
    monkeypatch.setattr(serve, "ensure_imported", lambda database, settings: calls.append("import"))
    monkeypatch.setattr(serve, "check_port", lambda host, port: None)
    # The test process keeps its own logging.
    monkeypatch.setattr(serve.logging.config, "dictConfig", lambda config: None)
    monkeypatch.setattr(serve.uvicorn, "run", lambda app, **kw: calls.append(("run", kw["host"])))
    return calls


def one_line_error(result):
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.parametrize("secret", [None, "change-me", "", "x" * 31])
def test_team_mode_refuses_a_missing_or_weak_secret(monkeypatch, secret):
    monkeypatch.delenv("QBANK_SECRET_KEY", raising=False)
    extra = {} if secret is None else {"secret_key": secret}
    with pytest.raises(ValidationError) as raised:
        Settings(_env_file=None, mode="team", **extra)  # type: ignore[call-arg]
    message = str(raised.value)
    assert "team mode needs QBANK_SECRET_KEY" in message
    assert "at least 32 characters" in message


def test_a_long_enough_secret_and_local_mode_are_fine(monkeypatch):
    monkeypatch.delenv("QBANK_SECRET_KEY", raising=False)
    assert Settings(_env_file=None, mode="team", secret_key="x" * 32).team  # type: ignore[call-arg]
    assert not Settings(_env_file=None).team  # type: ignore[call-arg]


def test_the_secret_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("QBANK_MODE", "team")
    monkeypatch.setenv("QBANK_SECRET_KEY", "s" * 40)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.mode, settings.secret_key) == ("team", "s" * 40)


def test_serve_in_team_mode_without_a_secret_says_so(cli, started):
    line = one_line_error(cli("serve", env={"QBANK_MODE": "team"}))
    assert "team mode needs QBANK_SECRET_KEY" in line
    assert started == []


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::"])
def test_local_mode_refuses_a_non_loopback_address(cli, started, host):
    line = one_line_error(cli("serve", "--host", host))
    assert f"refusing to listen on {host} in local mode" in line
    assert "QBANK_MODE=team" in line
    assert started == []  # refused before importing, binding or starting anything


def test_local_mode_refuses_a_non_loopback_address_from_the_environment(cli, started):
    line = one_line_error(cli("serve", env={"QBANK_HOST": "0.0.0.0"}))
    assert "QBANK_MODE=team" in line
    assert started == []


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost"])
def test_local_mode_serves_on_loopback(cli, started, host):
    result = cli("serve", "--host", host)
    assert result.exit_code == 0, result.output
    assert started == ["import", ("run", host)]


def test_team_mode_serves_on_any_address(cli, started):
    env = {"QBANK_MODE": "team", "QBANK_SECRET_KEY": "k" * 48}
    result = cli("serve", "--host", "0.0.0.0", env=env)
    assert result.exit_code == 0, result.output
    assert started == ["import", ("run", "0.0.0.0")]


def test_user_add_and_list(cli, app, browser, db):
    result = cli("user", "add", "boss", "--admin", "--password-stdin", input="boss-password-1\n")
    assert result.exit_code == 0, result.output
    assert result.stdout == "created administrator boss\n"
    assert cli("user", "add", "ana", "--password-stdin", input="ana-password-1\n").exit_code == 0
    assert db.learner("boss").is_admin
    assert not db.learner("ana").is_admin
    assert db.learner("ana").password_hash.startswith("$argon2id$")

    listing = cli("user", "list")
    assert listing.exit_code == 0
    assert listing.stdout.splitlines() == [
        "admin\tadmin\t",
        "ana\tmember\t",
        "boss\tadmin\t",
        "member\tmember\t",
        "other\tmember\t",
    ]

    boss = browser()
    boss.sign_in("boss", "boss-password-1")
    assert boss.get("/admin/team").status_code == 200


def test_user_add_prompts_for_the_password_twice(cli, app, browser):
    result = cli("user", "add", "ana", input="ana-password-1\nana-password-1\n")
    assert result.exit_code == 0, result.output
    browser().sign_in("ana", "ana-password-1")


def test_user_add_refusals_are_one_line(cli, app, users, db):
    line = one_line_error(cli("user", "add", "member", "--password-stdin", input="long-enough\n"))
    assert line == "error: user 'member' already exists"
    # Sign-in ignores case, so a name differing only in case is taken too.
    line = one_line_error(cli("user", "add", "Member", "--password-stdin", input="long-enough\n"))
    assert line == "error: user 'Member' already exists"
    line = one_line_error(cli("user", "add", "ana", "--password-stdin", input="short\n"))
    assert "at least 8 characters" in line
    line = one_line_error(cli("user", "add", "a b", "--password-stdin", input="long-enough\n"))
    assert "user names are" in line
    assert db.count(Learner) == 3


def test_user_list_without_users(cli, app):
    result = cli("user", "list")
    assert (result.exit_code, result.stdout) == (0, "no users\n")


def test_user_disable_and_enable(cli, app, users, browser, db):
    member = browser("member")
    result = cli("user", "disable", "member")
    assert (result.exit_code, result.stdout) == (0, "disabled member\n")
    assert "member\tmember\tdisabled" in cli("user", "list").stdout
    assert member.get("/").status_code == 303  # signed out
    assert browser().login("member").status_code == 401

    assert cli("user", "enable", "member").stdout == "enabled member\n"
    browser().sign_in("member")


def test_user_reset_password_ends_the_sessions(cli, app, users, browser, db):
    member = browser("member")
    result = cli("user", "reset-password", "member", "--password-stdin", input=f"{NEW_PASSWORD}\n")
    assert result.exit_code == 0, result.output
    assert "password of member reset" in result.stdout
    assert db.sessions("member") == 0
    assert member.get("/").status_code == 303
    assert browser().login("member", PASSWORDS["member"]).status_code == 401
    browser().sign_in("member", NEW_PASSWORD)


def test_user_commands_name_unknown_users(cli, app):
    assert one_line_error(cli("user", "disable", "ghost")) == "error: no user 'ghost'"
    line = one_line_error(cli("user", "reset-password", "ghost", "--password-stdin", input="x\n"))
    assert line == "error: no user 'ghost'"
