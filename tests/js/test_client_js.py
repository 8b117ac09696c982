"""The study client's modules (static/*.js) under their unit tests in tests/js, on Node's runner."""

import shutil
import subprocess
from pathlib import Path

import pytest

TESTS = Path(__file__).parent


def test_client_unit_tests_pass() -> None:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("node is not installed (Debian: apt-get install nodejs)")
    files = sorted(TESTS.glob("*.test.mjs"))
    assert files, "no client tests found"
    run = subprocess.run(
        [node, "--test", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "# fail 0" in run.stdout, run.stdout
