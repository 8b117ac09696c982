"""An app bound again serves the new bank alone: its settings, database, pins and host guard."""

from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from app.config import Settings
from app.content.bank.sync import import_content
from app.main import bind, create_app
from app.web.deps import get_now, utc_now
from tests.support import apps
from tests.support.content_files import write_files


def deck(title: str) -> str:
    return f"---\ntitle: {title}\n---\n\n## What is {title}?\n\n{title} is an answer.\n"


def bank(tmp_path: Path, url: str, title: str, **settings: str) -> Settings:
    root = write_files(tmp_path / title, {"decks/a.md": deck(title)})
    return Settings(_env_file=None, database_url=url, content_dir=root, **settings)  # type: ignore[call-arg]


def test_a_bound_app_serves_the_new_bank_and_its_hosts_only(
    tmp_path: Path, make_database_url: Callable[[str], str]
) -> None:
    first = bank(tmp_path, make_database_url("first"), "Alpha")
    second = bank(tmp_path, make_database_url("second"), "Beta", allowed_hosts="qbank.example")
    app = create_app(first)
    app.state.database.upgrade()
    import_content(first.content_dir, app.state.database)
    pins = app.state.pins
    with TestClient(app) as client:
        assert "Alpha" in client.get("/").text

    bind(app, second)
    app.state.database.upgrade()
    import_content(second.content_dir, app.state.database)
    assert app.state.settings is second and app.state.pins is not pins
    with TestClient(app) as client:
        assert client.get("/").status_code == 400  # testserver is not on the new list
    with TestClient(app, base_url="http://qbank.example") as client:
        page = client.get("/").text
    assert "Beta" in page and "Alpha" not in page


def test_an_app_a_test_changed_is_not_reused(
    tmp_path: Path, make_database_url: Callable[[str], str]
) -> None:
    settings = bank(tmp_path, make_database_url("one"), "Alpha")
    kept = apps.take(settings)
    kept.dependency_overrides[get_now] = lambda: None
    kept.state.clock = lambda: None
    apps.give_back(kept)
    assert apps.take(settings) is kept and not kept.dependency_overrides
    assert kept.state.clock is utc_now

    kept.add_api_route("/api/broken", lambda: 1 / 0)
    apps.give_back(kept)
    assert apps.take(settings) is not kept
