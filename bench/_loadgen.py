"""The load generator of bench/serve_bench.py, run in a process of its own.

    python bench/serve_bench.py --loadgen SPEC.json      # what serve_bench runs; prints JSON

A minimal HTTP/1.1 client on asyncio streams (uvloop when present), ~50 µs of CPU per request;
httpx.AsyncClient needs 1–2.6 ms per request here and tops out near 450 req/s, so it would
measure itself. One keep-alive connection per learner, opened one at a time. A learner asks
GET /api/study/next for its first card, then rates each card with one POST /api/reviews (a
random rating, the card's version, an Idempotency-Key) whose answer holds the next card, as
the study page does; a card's latency is that request's. With `think` a learner pauses
0.5–1.5× that long after each card. The CPU of the server (per worker), of the load generator
and of the whole machine over the measured window comes back with the latencies.
"""

import asyncio
import contextlib
import json
import random
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

RATINGS = (1, 2, 3, 4)
RATING_WEIGHTS = (0.10, 0.15, 0.60, 0.15)  # Again, Hard, Good, Easy


class Connection:
    """One keep-alive HTTP/1.1 connection; just enough protocol for this server."""

    def __init__(self, host: str, port: int, token: str | None) -> None:
        self.host, self.port = host, port
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        self._headers = f"Host: {host}:{port}\r\n{auth}".encode()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        sock = self._writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    async def request(
        self, method: str, path: str, body: bytes | None = None, key: str | None = None
    ) -> tuple[int, bytes]:
        assert self._reader is not None and self._writer is not None
        head = f"{method} {path} HTTP/1.1\r\n".encode() + self._headers
        if key is not None:
            head += f"Idempotency-Key: {key}\r\n".encode()
        if body is not None:
            head += b"Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
        self._writer.write(head + b"\r\n" + (body or b""))
        raw = await self._reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            return status, await self._reader.readexactly(int(headers["content-length"]))
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while size := int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16):
                chunks.append(await self._reader.readexactly(size))
                await self._reader.readexactly(2)
            await self._reader.readuntil(b"\r\n")
            return status, b"".join(chunks)
        return status, b""

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()


def _tree_cpu(pid: int) -> dict[int, float]:
    """User + system CPU seconds of process `pid` and of each of its descendants (workers)."""
    import psutil

    seconds: dict[int, float] = {}
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return seconds
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            if any("resource_tracker" in part for part in proc.cmdline()):
                continue  # multiprocessing's helper, not a worker
            times = proc.cpu_times()
            seconds[proc.pid] = times.user + times.system
    return seconds


def _machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, all cores."""
    import psutil

    times = psutil.cpu_times()
    idle = times.idle + getattr(times, "iowait", 0.0)
    total = sum(times)
    return total - idle, total


def _own_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def percentile(ordered: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


async def load(spec: dict[str, Any]) -> dict[str, Any]:
    host, port, kind = spec["host"], spec["port"], spec["kind"]
    tokens: list[str | None] = spec["tokens"] if kind == "cycles" else [None] * spec["concurrency"]
    conns = [Connection(host, port, token) for token in tokens]

    begin = time.perf_counter()
    window_start = begin + spec["warmup"]
    window_end = window_start + spec["duration"]
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    counters = {"empty": 0, "conflicts": 0}
    marks: dict[str, float] = {}
    split: list[float] = []  # CPU seconds of each worker, busiest first

    def note(what: str, status: int) -> None:
        key = f"{what} {status}"
        statuses[key] = statuses.get(key, 0) + 1

    async def mark_window() -> None:
        await asyncio.sleep(max(0.0, window_start - time.perf_counter()))
        server, marks["own_cpu"] = _tree_cpu(spec["server_pid"]), _own_cpu()
        busy, total = _machine_busy()
        await asyncio.sleep(max(0.0, window_end - time.perf_counter()))
        used = {
            pid: seconds - server.get(pid, 0.0)
            for pid, seconds in _tree_cpu(spec["server_pid"]).items()
        }
        marks["server_cpu"] = sum(used.values())
        # With --workers N, the supervisor (the root) idles and each worker is a child.
        workers = [seconds for pid, seconds in used.items() if pid != spec["server_pid"]]
        split.extend(sorted(workers, reverse=True) if len(workers) > 1 else [])
        marks["own_cpu"] = _own_cpu() - marks["own_cpu"]
        busy_end, total_end = _machine_busy()
        marks["machine"] = (busy_end - busy) / max(total_end - total, 1e-9)

    think = spec.get("think", 0.0)

    async def learner(conn: Connection, seed: int) -> None:
        rng = random.Random(seed)
        card: dict[str, Any] | None = None
        while time.perf_counter() < window_end:
            if card is None:  # the first card, or after the queue ran dry
                status, body = await conn.request("GET", "/api/study/next")
                if status != 200:
                    counters["empty"] += status == 204  # nothing due: should not happen here
                    if status != 204:
                        note("GET /api/study/next", status)
                    await asyncio.sleep(0.01)
                    continue
                card = json.loads(body)
            review = {
                "card_id": card["id"],
                "rating": rng.choices(RATINGS, RATING_WEIGHTS)[0],
                "version": card["version"],
                "duration_ms": rng.randrange(3_000, 30_000),
            }
            started = time.perf_counter()
            status, body = await conn.request(
                "POST", "/api/reviews", json.dumps(review).encode(), uuid.uuid4().hex
            )
            done = time.perf_counter()
            card = None
            if status == 409:
                counters["conflicts"] += 1
            elif status != 200:
                note("POST /api/reviews", status)
            else:
                card = json.loads(body)["next"]
                if window_start <= done <= window_end:
                    latencies.append(done - started)
            if think:  # reading the card and rating it: 0.5-1.5x the mean, so learners drift
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))

    async def healthz(conn: Connection) -> None:
        while (started := time.perf_counter()) < window_end:
            status, _ = await conn.request("GET", "/healthz")
            done = time.perf_counter()
            if status != 200:
                note("GET /healthz", status)
            elif window_start <= done <= window_end:
                latencies.append(done - started)

    marker = asyncio.create_task(mark_window())
    running = []
    # Connect one at a time, each starting work at once: with several workers, a burst of
    # connections tends to be accepted by one of them, while a worker busy serving the earlier
    # ones is slower to accept the next. The ramp takes at most half the warm-up.
    spacing = min(0.02, spec["warmup"] / 2 / len(conns))
    for i, conn in enumerate(conns):
        await conn.open()
        work = learner(conn, spec["seed"] + i) if kind == "cycles" else healthz(conn)
        running.append(asyncio.create_task(work))
        await asyncio.sleep(spacing)
    await asyncio.gather(marker, *running)
    await asyncio.gather(*(c.close() for c in conns))

    latencies.sort()
    seconds = spec["duration"]
    return {
        "kind": kind,
        "concurrency": len(conns),
        "completed": len(latencies),
        "rate": len(latencies) / seconds,
        "p50_ms": percentile(latencies, 50) * 1000,
        "p95_ms": percentile(latencies, 95) * 1000,
        "p99_ms": percentile(latencies, 99) * 1000,
        "max_ms": (latencies[-1] if latencies else float("nan")) * 1000,
        "server_cpu": marks.get("server_cpu", 0.0) / seconds,  # cores busy, on average
        "worker_cpu": [w / seconds for w in split],
        "loadgen_cpu": marks.get("own_cpu", 0.0) / seconds,
        "machine_busy": marks.get("machine", 0.0),  # share of all CPUs busy, any process
        "errors": statuses,
        **counters,
    }


def loadgen_main(spec_path: Path) -> int:
    spec = json.loads(spec_path.read_text())
    try:
        import uvloop  # installed with uvicorn[standard]
    except ImportError:
        result = asyncio.run(load(spec))
    else:
        result = uvloop.run(load(spec))
    print(json.dumps(result))
    return 0


def run_load(spec: dict[str, Any], tmp: Path) -> dict[str, Any]:
    path = tmp / f"load-{spec['kind']}-{spec['concurrency']}.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("serve_bench.py")), "--loadgen", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"load generator failed with exit code {done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])
