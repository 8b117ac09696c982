"""The built wheel, installed in a fresh virtual environment outside the checkout, is the app."""

import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import http
from tests.support.content_files import WriteContent
from tests.support.live_server import LiveServer
from tests.support.venvs import venv_with_wheel

ROOT = Path(__file__).resolve().parent.parent
HEAD = max(
    p.name.split("_")[0] for p in (ROOT / "app" / "infra" / "migrations" / "versions").glob("0*.py")
)

DECK = """
---
title: Wheel deck
slug: wheel
language: en
style: numbered
---

## 1. Euler {#euler}

**Answer.** $e^{i\\pi} + 1 = 0$ holds.
"""


def _run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding only the wheel built from this checkout and what it requires."""
    work = tmp_path_factory.mktemp("wheel")
    dist = work / "dist"
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", ROOT, "-w", dist, cwd=work)
    (wheel,) = dist.glob("qbank-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for shipped in (
        "app/templates/base.html",
        "app/static/app.js",
        "app/static/katex/katex.min.css",
        "app/infra/migrations/env.py",
        "app/infra/migrations/script.py.mako",
        f"app/infra/migrations/versions/{HEAD}_",
        "app/bundled/decks/",
    ):
        assert any(n.startswith(shipped) for n in names), f"{shipped} missing from {wheel.name}"
    return venv_with_wheel(wheel, work / "venv")


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QBANK_", "PYTHON"))}
    return env | extra


@pytest.mark.slow
def test_installed_wheel_is_self_contained(installed: Path, tmp_path: Path) -> None:
    python = installed / "bin" / "python"
    where = _run(python, "-c", "import app; print(app.__file__)", cwd=tmp_path, env=_clean_env())
    assert Path(where.strip()).is_relative_to(installed)
    # With no content directory configured, the bundled decks are the content.
    db = f"sqlite:///{tmp_path / 'bundled.db'}"
    out = _run(installed / "bin" / "qbank", "check", cwd=tmp_path, env=_clean_env())
    assert out.split()[0] != "0", out
    out = _run(
        installed / "bin" / "qbank", "import", cwd=tmp_path, env=_clean_env(QBANK_DATABASE_URL=db)
    )
    assert "added" in out
    # Every migration the wheel carries replays on an empty database.
    replay = (
        "import sys; from app.infra.db import make_engine; from app.infra.migrate import upgrade, "
        "current_revision; e = make_engine(sys.argv[1]); upgrade(e); print(current_revision(e))"
    )
    out = _run(python, "-c", replay, f"sqlite:///{tmp_path / 'replayed.db'}", cwd=tmp_path)
    assert out.strip() == HEAD


@pytest.mark.slow
def test_installed_wheel_serves_the_app(
    installed: Path,
    tmp_path: Path,
    write_content: WriteContent,
    live_server: Callable[..., LiveServer],
    database_url: str,
) -> None:
    content = write_content({"decks/wheel.md": DECK})
    server = live_server(
        database_url,
        tmp_path / "not-this-one",
        command=[str(installed / "bin" / "qbank")],
        args=["--content", str(content)],
    )
    with http.client(server.url, timeout=10) as client:
        home = client.get("/")
        assert home.status_code == 200 and "Wheel deck" in home.text
        card = client.get("/cards/euler")
        assert card.status_code == 200 and 'class="katex"' in card.text
        for path, kind in (
            ("/static/app.css", "text/css"),
            ("/static/app.js", "javascript"),
            ("/static/katex/katex.min.css", "text/css"),
            ("/static/katex/fonts/KaTeX_Main-Regular.woff2", "font/woff2"),
        ):
            response = client.get(path)
            assert response.status_code == 200, path
            assert kind in response.headers["content-type"], path
    out = _run(
        installed / "bin" / "qbank",
        "db",
        "upgrade",
        cwd=tmp_path,
        env=_clean_env(QBANK_DATABASE_URL=database_url),
    )
    assert out.strip().endswith(HEAD)
