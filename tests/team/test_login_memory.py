"""Memory under a burst of sign-ins: a real two-worker server, real argon2 (~64 MiB a check)."""

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from app.accounts import members
from app.infra.db import create_schema, make_engine
from tests.support import http
from tests.support.team import SECRET

MIB = 1 << 20
SIGN_INS = 30
WRONG = "not-the-password"


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _peak_resident(pid: int) -> int:
    """The most memory the process has ever held resident (VmHWM), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmHWM for process {pid}")


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_30_sign_ins_at_once_keep_each_worker_within_4_password_checks_of_memory(
    database_url, bank_dir, live_server
):
    engine = make_engine(database_url)
    create_schema(engine)
    engine.dispose()
    # Forwarded addresses believed from the test, so each sign-in comes from its own address and
    # names its own unknown account: no throttle stops any, each costs one full argon2 check.
    env = {"QBANK_MODE": "team", "QBANK_SECRET_KEY": SECRET}
    env["QBANK_FORWARDED_ALLOW_IPS"] = "127.0.0.1"
    server = live_server(database_url, bank_dir, workers=2, env=env)
    cost = PasswordHasher().memory_cost * 1024  # what the server's checks hold: the default

    def sign_in(n: int) -> int:
        form = {"name": f"nobody-{n}", "password": WRONG}
        with http.client(server.url, timeout=60) as client:
            headers = {"X-Forwarded-For": f"10.8.{n // 250}.{n % 250 + 1}"}
            return client.post("/login", data=form, headers=headers).status_code

    # One at a time, so that each worker has loaded what a sign-in needs, and has held one
    # check, before its peak is read.
    assert {sign_in(n) for n in range(1000, 1008)} == {401}
    workers = _children(server.process.pid)
    before = {pid: _peak_resident(pid) for pid in workers}

    with ThreadPoolExecutor(SIGN_INS) as pool:
        statuses = list(pool.map(sign_in, range(SIGN_INS)))

    assert statuses == [401] * SIGN_INS
    growth = {pid: _peak_resident(pid) - before[pid] for pid in workers}
    assert growth, "the workers are measured"
    # At most 4 checks at once per worker (one was held before), plus one check's worth of room
    # for the rest of its requests; unbounded, a worker held 7 or more checks' worth at its peak.
    allowed = (members.CONCURRENT_VERIFICATIONS + 1) * cost
    assert all(grown <= allowed for grown in growth.values()), {
        pid: f"{grown / MIB:.0f} MiB" for pid, grown in growth.items()
    }
