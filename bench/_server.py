"""A real `qbank serve` for the benchmarks: started as a user starts it, stopped with its workers.

    process, port, log = start_server(url, content, workers=2, tmp=tmp)          # team mode
    process, port, log = start_server(url, content, workers=1, tmp=tmp, team=False)  # local
    ...
    stop_server(process)

The server runs in its own process group, away from any .env of the project (cwd=tmp), with
its access log written to `log`; team mode gets a random 48-character QBANK_SECRET_KEY.
"""

import contextlib
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench._loadgen import percentile


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def qbank_command() -> list[str]:
    """The `qbank` command of this interpreter's environment, as a user would run it."""
    qbank = Path(sys.executable).with_name("qbank")
    if qbank.exists():
        return [str(qbank)]
    return [sys.executable, "-c", "from app.cli import main; main()"]


def start_server(
    url: str, content: Path, workers: int, tmp: Path, *, team: bool = True, watch: bool = False
) -> tuple["subprocess.Popen[bytes]", int, Path]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("QBANK_")}
    env |= {
        "QBANK_DATABASE_URL": url,
        "QBANK_CONTENT_DIR": str(content),
    }
    if team:
        env |= {"QBANK_MODE": "team", "QBANK_SECRET_KEY": secrets.token_urlsafe(36)}  # 48 chars
    command = qbank_command()
    log = tmp / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command, "serve", "--port", str(port), "--workers", str(workers)]
            + (["--watch"] if watch else []),
            cwd=tmp,  # away from any .env in the project
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the workers are stopped with it
        )
    deadline = time.monotonic() + 600  # a first import of a large folder on a busy machine
    while True:
        if process.poll() is not None:
            raise SystemExit(f"qbank serve exited with {process.returncode}:\n{tail(log)}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
            if s.recv(64).startswith(b"HTTP/1.1 200"):
                return process, port, log
        if time.monotonic() > deadline:
            stop_server(process)
            raise SystemExit(f"qbank serve did not answer /healthz in 600 s:\n{tail(log)}")
        time.sleep(0.1)


# One access-log line of app.web.observe: … "GET /api/study/next?…" 200 1.2ms
_ACCESS = re.compile(rb'"([A-Z]+) ([^ ?"]+)[^"]*" \d{3} ([\d.]+)ms')


def server_times(log: Path, start: int) -> dict[str, tuple[int, float, float, float]]:
    """Per request kind, from the access log past byte `start`: count, p50, p95, p99 (ms).

    The app's own time for each request, from the moment its worker starts on it to the
    answer's last byte handed over: set beside the load generator's cycle latencies, it tells
    time spent in a request from time spent waiting for the event loop to get to it.
    """
    with log.open("rb") as f:
        f.seek(start)
        found: dict[str, list[float]] = {}
        for match in _ACCESS.finditer(f.read()):
            method, path, ms = match.groups()
            found.setdefault(f"{method.decode()} {path.decode()}", []).append(float(ms))
    times = {}
    for kind, values in found.items():
        values.sort()
        times[kind] = (
            len(values),
            *(percentile(values, q) for q in (50, 95, 99)),
        )
    return times


def tail(log: Path, lines: int = 40) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def stop_server(process: "subprocess.Popen[bytes]") -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def tree_env(tree: Path | None, **values: str) -> dict[str, str]:
    """This environment without its QBANK_ settings, plus `values`; with `tree`, its code."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("QBANK_")} | values
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    return env


def seconds_until_ready(
    args: list[str],
    env: dict[str, str],
    tmp: Path,
    ready: "Callable[[], bool]",
    *,
    limit: float,
    poll: float,
) -> float:
    """Launch `qbank ARGS` in `tmp`, poll `ready()` until it holds, stop the server; the seconds
    from launch to ready. A server that exits or is not ready within `limit` stops the run."""
    log = tmp / "server.log"
    with log.open("wb") as out:
        began = time.perf_counter()
        process = subprocess.Popen(
            [*qbank_command(), *args],
            cwd=tmp,  # away from any .env in the project
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the workers are stopped with it
        )
    try:
        while not ready():
            if process.poll() is not None or time.perf_counter() - began > limit:
                raise SystemExit(f"qbank {' '.join(args)} was not ready:\n{tail(log)}")
            time.sleep(poll)
        return time.perf_counter() - began
    finally:
        stop_server(process)
