"""`qbank serve` on a database it cannot write: one line saying so, exit 1, never a traceback."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from app.accounts.learners import get_learner
from app.content.bank.sync import import_content
from tests.support.content_files import WriteContent
from tests.support.live_server import free_port

pytestmark = pytest.mark.storage

DECK = """---
title: Drill
slug: drill
language: en
style: numbered
---

## 1. Question {#q01}

**Answer.** A.
"""


def _read_only(url: str) -> str:
    """The same database, opened so that every write fails as on a read-only file or a standby."""
    if url.startswith("sqlite:///"):
        return f"sqlite:///file:{url.removeprefix('sqlite:///')}?mode=ro&uri=true"
    return url + "%20-cdefault_transaction_read_only%3Don"  # the test URL has options already


def test_serve_refuses_a_database_it_cannot_write_in_one_line(
    database, engine: Engine, database_url: str, write_content: WriteContent, tmp_path: Path
) -> None:
    content = write_content({"decks/drill.md": DECK})
    import_content(content, database)
    with database.session() as session:
        get_learner(session, "local", "UTC")  # nothing left for start-up to create
    env = {k: v for k, v in os.environ.items() if not k.startswith("QBANK_")}
    env |= {"QBANK_DATABASE_URL": _read_only(database_url), "QBANK_CONTENT_DIR": str(content)}
    command = [sys.executable, "-c", "from app.cli import main; main()"]
    try:
        done = subprocess.run(
            [*command, "serve", "--port", str(free_port())],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("qbank serve started on a read-only database") from None
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    [line] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert line.startswith("error: cannot use the database ")
    assert "qbank must be able to write it" in line
