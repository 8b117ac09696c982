"""DNS rebinding and forgery in local mode: the Host allow-list, Origin and fetch metadata."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.web.hosts import host_name
from tests.support import apps

SETTINGS_FORM = {
    "desired_retention": "0.8",
    "new_per_day": "7",
    "max_reviews_per_day": "70",
    "rollover_hour": "4",
    "timezone": "UTC",
}


@pytest.fixture
def guarded(database_url: str, bank_dir: Path) -> Iterator[FastAPI]:
    """The local app with the default allow-list (the suite's own adds `testserver`)."""
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=database_url,
        content_dir=bank_dir,
        allowed_hosts="127.0.0.1,localhost,[::1]",
        public_url="https://qbank.example.org/",
    )
    app = apps.take(settings)
    yield app
    apps.give_back(app)


def visit(app: FastAPI, host: str) -> TestClient:
    headers = {"Accept-Language": "en", "Host": host}
    return TestClient(app, base_url=f"http://{host}", follow_redirects=False, headers=headers)


@pytest.mark.parametrize(
    "host", ["127.0.0.1:8000", "localhost", "LOCALHOST:8000", "[::1]:8000", "qbank.example.org"]
)
def test_loopback_and_the_public_host_are_answered(guarded, host):
    with visit(guarded, host) as client:
        assert client.get("/").status_code == 200
        assert client.get("/backup.json").status_code == 200


@pytest.mark.parametrize(
    "host", ["rebind.example", "rebind.example:8000", "127.0.0.1.rebind.example", "", "[::2]"]
)
def test_a_foreign_host_gets_400_and_nothing_else(guarded, host):
    with visit(guarded, host) as client:
        page = client.get("/backup.json")
        assert page.status_code == 400
        assert "QBANK_ALLOWED_HOSTS" in page.text
        assert "qbank-backup" not in page.text  # none of the backup
        api = client.get("/api/study/next")
        assert (api.status_code, api.json()["code"]) == (400, "bad_host")
        posted = client.post("/settings", data=SETTINGS_FORM, headers={"Origin": f"http://{host}"})
        assert posted.status_code == 400
    with visit(guarded, "127.0.0.1:8000") as client:
        assert 'value="20"' in client.get("/settings").text  # new cards per day unchanged


def test_the_refusal_speaks_chinese_to_a_chinese_browser(guarded):
    with visit(guarded, "rebind.example") as client:
        page = client.get("/", headers={"Accept-Language": "zh-CN"})
    assert page.status_code == 400
    assert "本服务不接受发往主机名" in page.text


def test_health_checks_answer_any_host(guarded):
    with visit(guarded, "10.1.2.3:8000") as client:
        assert client.get("/healthz").status_code == 200


def test_a_star_allows_any_host(database_url, bank_dir):
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        database_url=database_url,
        content_dir=bank_dir,
        allowed_hosts="*",
    )
    with visit(create_app(settings), "anything.example") as client:
        assert client.get("/").status_code == 200


@pytest.mark.parametrize(
    ("value", "name"),
    [("LocalHost:80", "localhost"), ("[::1]:8000", "[::1]"), ("example.org.", "example.org")],
)
def test_host_names_drop_port_case_and_trailing_dot(value, name):
    assert host_name(value) == name


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "null"},
        {"Origin": "http://rebind.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
def test_local_state_changes_from_another_site_are_refused(client, bank, headers):
    response = client.post("/settings", data=SETTINGS_FORM, headers=headers)
    assert response.status_code == 403
    assert 'data-code="cross_site"' in response.text
    assert bank.learner().new_per_day == 20


@pytest.mark.parametrize(
    "headers",
    [{}, {"Origin": "http://testserver"}, {"Sec-Fetch-Site": "same-origin"}],
)
def test_local_state_changes_from_the_site_itself_are_accepted(client, bank, headers):
    response = client.post("/settings", data=SETTINGS_FORM, headers=headers)
    assert response.status_code == 303
    assert bank.learner().new_per_day == 7


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/practice/9223372036854775808"),
        ("GET", "/practice/99999999999999999999999"),
        ("GET", "/practice/-1"),
        ("POST", "/practice/9223372036854775808/rate"),
        ("GET", "/api/jobs/9223372036854775808"),
        ("GET", "/api/jobs/9223372036854775807"),
        ("GET", "/api/jobs/2147483647"),
    ],
)
def test_path_ids_past_64_bits_are_not_found(client, method, path):
    response = client.request(method, path)
    assert response.status_code == 404
