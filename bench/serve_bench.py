"""Serving benchmark: the real `qbank serve` on loopback, N learners doing next → review cycles.

    python bench/serve_bench.py                          # SQLite (temp file), 1 worker
    python bench/serve_bench.py --workers 2 \\
        --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
    python bench/serve_bench.py --learners 1,8,32 --duration 15 --warmup 3 --cards 10000
    python bench/serve_bench.py --setup-sql "CREATE INDEX … ON card (…)"   # try an index

What it does:
1. writes the synthetic bank (bench/_synthetic.py) to a temp dir and imports it into a fresh
   database: a SQLite file in the temp dir, or a dedicated schema in the PostgreSQL database of
   --database-url (`?options=-csearch_path=…`), dropped at the end (VACUUM ANALYZE of its
   tables after set-up, as autovacuum would do shortly after an import);
2. creates one team-mode account per simulated learner (a disjoint set for each N, so every
   level starts from the same kind of history) with a personal API token, and gives each a
   review history through `app.study.record_review` at past times: --history-days of sessions
   (due cards, then new cards in content order, learning steps repeated within the session),
   the last one 40 minutes ago, so that learning, review and new cards are all due at the start.
   Daily limits are lifted (new and reviews 9999) so that no learner runs dry mid-run;
3. starts `qbank serve --port <free> --workers W` with QBANK_MODE=team and a random 48-character
   QBANK_SECRET_KEY, and waits for /healthz. The server runs as a user would run it, with its
   access log (to a file in the temp dir);
4. for each N: a separate load-generator process opens one keep-alive connection per learner
   (Authorization: Bearer <token>), one at a time so that they spread over the workers, and loops
   GET /api/study/next → POST /api/reviews (a random rating, the card's version) for --warmup +
   --duration seconds, with no think time unless --think gives one. A cycle is one GET plus
   one POST; its latency runs from sending the GET to reading the POST's answer. Then, on the
   same server, N connections loop GET /healthz for as long: the ceiling. Only completions
   inside the measured window count.
   The server's own time per request kind (its access log, warm-up included) is printed too.

The load generator is a minimal HTTP/1.1 client over asyncio streams (uvloop when present),
~50 µs of CPU per request. httpx.AsyncClient needs 1–2.6 ms per request here, more than the
server spends on /healthz, and tops out near 450 req/s, so it would measure the client. The CPU
of the server (per worker), of the load generator and of the whole machine is printed per phase.

Targets, at the largest N (32 by default): p99 cycle latency <= 50 ms, and cycles/s >= 40% of
the /healthz requests/s. Exits 1 when one is missed or a request failed.
"""

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from heapq import heappop, heappush
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

P99_TARGET_MS = 50.0
RATIO_TARGET = 0.40
RATINGS = (1, 2, 3, 4)
RATING_WEIGHTS = (0.10, 0.15, 0.60, 0.15)  # Again, Hard, Good, Easy
PASSWORD = "bench-password-1"


# --------------------------------------------------------------------------- load generator


class _Connection:
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

    async def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        assert self._reader is not None and self._writer is not None
        head = f"{method} {path} HTTP/1.1\r\n".encode() + self._headers
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


def _percentile(ordered: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


async def _load(spec: dict[str, Any]) -> dict[str, Any]:
    host, port, kind = spec["host"], spec["port"], spec["kind"]
    tokens: list[str | None] = spec["tokens"] if kind == "cycles" else [None] * spec["concurrency"]
    conns = [_Connection(host, port, token) for token in tokens]

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

    async def learner(conn: _Connection, seed: int) -> None:
        rng = random.Random(seed)
        while (started := time.perf_counter()) < window_end:
            status, body = await conn.request("GET", "/api/study/next")
            if status == 204:
                counters["empty"] += 1  # nothing due: not a cycle; should not happen here
                await asyncio.sleep(0.01)
                continue
            if status != 200:
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
            status, _ = await conn.request("POST", "/api/reviews", json.dumps(review).encode())
            done = time.perf_counter()
            if status == 409:
                counters["conflicts"] += 1
            elif status != 200:
                note("POST /api/reviews", status)
            elif window_start <= done <= window_end:
                latencies.append(done - started)
            if think:  # reading the answer and rating it: 0.5-1.5x the mean, so learners drift
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))

    async def healthz(conn: _Connection) -> None:
        while (started := time.perf_counter()) < window_end:
            status, _ = await conn.request("GET", "/healthz")
            done = time.perf_counter()
            if status != 200:
                note("GET /healthz", status)
            elif window_start <= done <= window_end:
                latencies.append(done - started)

    marker = asyncio.create_task(mark_window())
    running = []
    for i, conn in enumerate(conns):
        # Connect one at a time, each starting work at once: with several workers, a burst of
        # connections tends to be accepted by one of them, while a worker busy serving the
        # earlier ones is slower to accept the next. (A ramp of N x 20 ms, inside the warm-up.)
        await conn.open()
        work = learner(conn, spec["seed"] + i) if kind == "cycles" else healthz(conn)
        running.append(asyncio.create_task(work))
        await asyncio.sleep(0.02)
    await asyncio.gather(marker, *running)
    await asyncio.gather(*(c.close() for c in conns))

    latencies.sort()
    seconds = spec["duration"]
    return {
        "kind": kind,
        "concurrency": len(conns),
        "completed": len(latencies),
        "rate": len(latencies) / seconds,
        "p50_ms": _percentile(latencies, 50) * 1000,
        "p95_ms": _percentile(latencies, 95) * 1000,
        "p99_ms": _percentile(latencies, 99) * 1000,
        "max_ms": (latencies[-1] if latencies else float("nan")) * 1000,
        "server_cpu": marks.get("server_cpu", 0.0) / seconds,  # cores busy, on average
        "worker_cpu": [w / seconds for w in split],
        "loadgen_cpu": marks.get("own_cpu", 0.0) / seconds,
        "machine_busy": marks.get("machine", 0.0),  # share of all CPUs busy, any process
        "errors": statuses,
        **counters,
    }


def _loadgen_main(spec_path: Path) -> int:
    spec = json.loads(spec_path.read_text())
    try:
        import uvloop  # installed with uvicorn[standard]
    except ImportError:
        result = asyncio.run(_load(spec))
    else:
        result = uvloop.run(_load(spec))
    print(json.dumps(result))
    return 0


def _run_load(spec: dict[str, Any], tmp: Path) -> dict[str, Any]:
    path = tmp / f"load-{spec['kind']}-{spec['concurrency']}.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run(
        [sys.executable, __file__, "--loadgen", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"load generator failed with exit code {done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- database set-up


def _postgres_schema(url: str) -> tuple[str, str]:
    """Create a dedicated schema; return it and the URL whose search_path points at it."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    schema = f"serve_bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, poolclass=NullPool)
    with admin.begin() as connection:
        connection.exec_driver_sql(f"CREATE SCHEMA {schema}")
    admin.dispose()
    joiner = "&" if "?" in url else "?"
    return schema, f"{url}{joiner}options=-csearch_path%3D{schema}"


def _drop_schema(url: str, schema: str) -> None:
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    admin = create_engine(url, poolclass=NullPool)
    with admin.begin() as connection:
        connection.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    admin.dispose()


def _content_order(session: Any) -> list[str]:
    from sqlmodel import col, select

    from app.models import Card, Deck

    query = (
        select(Card.id)
        .join(Deck, col(Deck.id) == Card.deck_id)
        .where(col(Card.retired).is_(False), col(Deck.retired).is_(False))
        .order_by(col(Deck.path), col(Card.position))
    )
    return list(session.exec(query))


def _simulate_history(
    session: Any, learner: Any, order: list[str], now: datetime, days: int, seed: int
) -> int:
    """Past study sessions through record_review; returns how many ratings were given."""
    from app.study import record_review

    rng = random.Random(seed)
    due: dict[str, datetime] = {}
    next_new = 0
    given = 0
    # One session a day at a varying hour, then a short one 40 minutes ago.
    starts = [
        now - timedelta(days=d) + timedelta(hours=rng.uniform(-3, 3)) for d in range(days, 0, -1)
    ]
    starts.append(now - timedelta(minutes=40))
    for index, start in enumerate(starts):
        last = index == len(starts) - 1
        length = timedelta(minutes=28 if last else 45)
        new_today = 6 if last else rng.randint(8, 12)
        queue = sorted((c for c, d in due.items() if d <= start), key=due.__getitem__)
        queue += order[next_new : next_new + new_today]
        next_new += new_today
        later: list[tuple[datetime, str]] = []  # learning steps coming up within the session
        t = start
        while queue or later:
            if later and (later[0][0] <= t or not queue):
                when, card_id = heappop(later)
                if when > start + length:
                    break
                t = max(t, when)
            else:
                card_id = queue.pop(0)
            rating = rng.choices(RATINGS, RATING_WEIGHTS)[0]
            result = record_review(
                session,
                learner=learner,
                card_id=card_id,
                rating=rating,
                now=t,
                duration_ms=rng.randrange(3_000, 30_000),
            )
            given += 1
            due[card_id] = result.due
            if result.due <= start + length:
                heappush(later, (result.due, card_id))
            t += timedelta(seconds=rng.uniform(5, 25))
    return given


def _prepare(
    url: str, content: Path, learners: int, days: int, seed: int, setup_sql: list[str]
) -> tuple[dict[str, float], list[str], list[dict[str, int]]]:
    """Import the bank, create the accounts with their histories; return timings and tokens."""
    from sqlmodel import Session

    from app import accounts
    from app.content.sync import import_content
    from app.db import create_schema, make_engine
    from app.learners import update_settings
    from app.study import Filters, counts

    engine = make_engine(url)
    if engine.dialect.name == "postgresql":
        from sqlalchemy import event

        @event.listens_for(engine, "connect")
        def _no_fsync(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
            # Only this set-up process's connections: tens of thousands of history commits.
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SET synchronous_commit TO OFF")
            dbapi_connection.commit()

    create_schema(engine)
    timings: dict[str, float] = {}
    start = time.perf_counter()
    report = import_content(content, engine)
    timings["import"] = time.perf_counter() - start
    timings["cards"] = report.added

    now = datetime.now(UTC)
    tokens: list[str] = []
    queues: list[dict[str, int]] = []
    start = time.perf_counter()
    reviews = 0
    with Session(engine) as session:
        order = _content_order(session)
        for i in range(learners):
            learner = accounts.create_user(session, name=f"bench-{i:03d}", password=PASSWORD)
            # Unlimited for the run: a learner whose queue ran dry would time 204s, not cycles.
            update_settings(
                session,
                learner=learner,
                desired_retention=0.9,
                new_per_day=9999,
                max_reviews_per_day=9999,
                rollover_hour=4,
                timezone="UTC",
            )
            reviews += _simulate_history(session, learner, order, now, days, seed * 1000 + i)
            tokens.append(
                accounts.create_api_token(session, learner=learner, name="bench", now=now)
            )
            left = counts(session, learner=learner, now=datetime.now(UTC), filters=Filters())
            queues.append({"learning": left.learning, "review": left.review, "new": left.new})
    timings["history"] = time.perf_counter() - start
    timings["reviews"] = reviews
    with engine.begin() as connection:
        for statement in setup_sql:
            connection.exec_driver_sql(statement)
    if engine.dialect.name == "postgresql":
        # What autovacuum would do within a minute of the import: planner statistics and the
        # visibility map, so that the run does not start on an unanalysed database.
        from sqlmodel import SQLModel

        tables = ", ".join(SQLModel.metadata.tables)  # this schema's tables (search_path)
        with engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                f"VACUUM ANALYZE {tables}"
            )
    engine.dispose()
    return timings, tokens, queues


# --------------------------------------------------------------------------- the server


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_server(
    url: str, content: Path, workers: int, tmp: Path
) -> tuple["subprocess.Popen[bytes]", int, Path]:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("QBANK_")}
    env |= {
        "QBANK_DATABASE_URL": url,
        "QBANK_CONTENT_DIR": str(content),
        "QBANK_MODE": "team",
        "QBANK_SECRET_KEY": secrets.token_urlsafe(36),  # 48 characters
    }
    qbank = Path(sys.executable).with_name("qbank")
    command = (
        [str(qbank)]
        if qbank.exists()
        else [sys.executable, "-c", "from app.cli import main; main()"]
    )
    log = tmp / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command, "serve", "--port", str(port), "--workers", str(workers)],
            cwd=tmp,  # away from any .env in the project
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the workers are stopped with it
        )
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            raise SystemExit(f"qbank serve exited with {process.returncode}:\n{_tail(log)}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
            if s.recv(64).startswith(b"HTTP/1.1 200"):
                return process, port, log
        if time.monotonic() > deadline:
            _stop_server(process)
            raise SystemExit(f"qbank serve did not answer /healthz in 60 s:\n{_tail(log)}")
        time.sleep(0.1)


# One access-log line of app.web.observe: … "GET /api/study/next?…" 200 1.2ms
_ACCESS = re.compile(rb'"([A-Z]+) ([^ ?"]+)[^"]*" \d{3} ([\d.]+)ms')


def _server_times(log: Path, start: int) -> dict[str, tuple[int, float, float, float]]:
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
            *(_percentile(values, q) for q in (50, 95, 99)),
        )
    return times


def _tail(log: Path, lines: int = 40) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def _stop_server(process: "subprocess.Popen[bytes]") -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


# --------------------------------------------------------------------------- report


def _cpu(phase: dict[str, Any]) -> str:
    """Server cores busy, and with several workers how they were shared: '1.04 (0.98+0.06)'."""
    split = "+".join(f"{w:.2f}" for w in phase["worker_cpu"])
    return f"{phase['server_cpu']:.2f}" + (f" ({split})" if split else "")


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--database-url",
        help="PostgreSQL URL: a dedicated schema is created in its database and dropped at the "
        "end (default: a fresh SQLite file in the temp dir)",
    )
    parser.add_argument("--workers", type=int, default=1, help="qbank serve --workers (default 1)")
    parser.add_argument("--duration", type=float, default=15.0, help="measured seconds per phase")
    parser.add_argument("--warmup", type=float, default=3.0, help="unmeasured seconds first")
    parser.add_argument("--learners", default="1,8,32", help="concurrency levels, e.g. 1,8,32")
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="mean pause of each learner between cycles (default 0: back to back, as the "
        "targets are defined); for the learners one server keeps within its latency",
    )
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--decks", type=int, default=20)
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--history-days", type=int, default=10, help="days of past sessions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--setup-sql",
        action="append",
        default=[],
        metavar="SQL",
        help="run this statement after the import and history, before the server starts (e.g. "
        "to try an index before writing its migration); repeatable",
    )
    parser.add_argument(
        "--keep-server",
        action="store_true",
        help="after the run, leave the server up (Enter stops it): for profiling",
    )
    parser.add_argument("--loadgen", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.loadgen:
        return _loadgen_main(args.loadgen)

    levels = [int(n) for n in args.learners.split(",") if n.strip()]
    if not levels or min(levels) < 1:
        parser.error("--learners takes positive integers, e.g. 1,8,32")

    from app.config import Settings
    from bench._synthetic import write_bank

    schema = None
    base_url = ""
    if args.database_url:
        base_url = Settings(_env_file=None, database_url=args.database_url).database_url  # type: ignore[call-arg]
        if not base_url.startswith("postgresql"):
            parser.error("--database-url must be a PostgreSQL URL (SQLite uses a temp file)")

    with tempfile.TemporaryDirectory(prefix="qbank-serve-bench-") as name:
        tmp = Path(name)
        content = tmp / "content"
        bank = write_bank(
            content, cards=args.cards, decks=args.decks, topics=args.topics, seed=args.seed
        )
        if base_url:
            schema, url = _postgres_schema(base_url)
        else:
            url = f"sqlite:///{tmp / 'bench.db'}"
        process = None
        try:
            setup, tokens, queues = _prepare(
                url, content, sum(levels), args.history_days, args.seed, args.setup_sql
            )
            load = os.getloadavg()[0]
            process, port, log = _start_server(url, content, args.workers, tmp)
            results = []
            offset = 0
            for n in levels:
                common = {
                    "host": "127.0.0.1",
                    "port": port,
                    "server_pid": process.pid,
                    "concurrency": n,
                    "warmup": args.warmup,
                    "duration": args.duration,
                    "seed": args.seed * 1000 + offset,
                    "think": args.think,
                }
                logged = log.stat().st_size
                cycles = _run_load(
                    {**common, "kind": "cycles", "tokens": tokens[offset : offset + n]}, tmp
                )
                cycles["server_ms"] = _server_times(log, logged)
                health = _run_load({**common, "kind": "healthz"}, tmp)
                results.append((n, cycles, health, queues[offset : offset + n]))
                offset += n
            if args.keep_server:
                input(f"server on http://127.0.0.1:{port} (pid {process.pid}); Enter stops it ")
            log_lines = sum(1 for _ in log.open("rb"))
        finally:
            if process is not None:
                _stop_server(process)
            if schema:
                _drop_schema(base_url, schema)

    _report(args, bank, setup, results, schema, log_lines, load)
    failed = any(c["errors"] or h["errors"] or c["empty"] for _, c, h, _ in results)
    _, top, top_health, _ = results[-1]
    passed = top["p99_ms"] <= P99_TARGET_MS and top["rate"] >= RATIO_TARGET * top_health["rate"]
    return 0 if (passed or args.think) and not failed else 1


def _report(
    args: argparse.Namespace,
    bank: Any,
    setup: dict[str, float],
    results: list[tuple[int, dict[str, Any], dict[str, Any], list[dict[str, int]]]],
    schema: str | None,
    log_lines: int,
    load: float,
) -> None:
    database = f"PostgreSQL (schema {schema}, dropped)" if schema else "SQLite (temp file)"
    reviews, learners = int(setup["reviews"]), sum(n for n, *_ in results)
    requests = sum((c["completed"] * 2 + h["completed"]) for _, c, h, _ in results)
    print(
        f"bank: {bank.cards:,} cards in {bank.decks} decks, {bank.topics} topics; imported in "
        f"{setup['import']:.1f} s"
    )
    print(
        f"history: {learners} team accounts with API tokens, {reviews:,} past ratings "
        f"({reviews / learners:.0f} each, {args.history_days} days) in {setup['history']:.1f} s; "
        "daily limits lifted to 9999"
    )
    print(f"server: qbank serve --workers {args.workers}, team mode, {database}")
    note = ""
    if log_lines < requests / 2:
        note = " (far fewer than requests: the access log is not being written)"
    print(f"access log: {log_lines:,} lines for ~{requests:,} measured requests{note}")
    print(
        f"machine: {os.cpu_count()} CPUs shared by the server, its database and the load "
        f"generator; load average {load:.1f} before the run; Python {platform.python_version()}"
    )
    print(
        f"each phase: {args.warmup:g} s warm-up + {args.duration:g} s measured; cycle = "
        "GET /api/study/next + POST /api/reviews, "
        + (
            f"then {args.think:g} s of thinking on average (0.5-1.5x)"
            if args.think
            else "back to back (no think time)"
        )
    )
    print()
    print(
        f"{'learners':>8} {'due L/R/N':>12} {'cycles/s':>9} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'p99 ms':>7} {'server CPU':>14} {'loadgen CPU':>11} {'all CPUs':>8}"
    )
    for n, c, _, q in results:
        due = "/".join(
            f"{sum(x[k] for x in q) / len(q):.0f}" for k in ("learning", "review", "new")
        )
        print(
            f"{n:>8} {due:>12} {c['rate']:>9.1f} {c['p50_ms']:>7.1f} {c['p95_ms']:>7.1f} "
            f"{c['p99_ms']:>7.1f} {_cpu(c):>14} {c['loadgen_cpu']:>11.2f} "
            f"{c['machine_busy']:>8.0%}"
        )
    print("server's own time per request, from its access log (warm-up included), ms:")
    for n, c, _, _ in results:
        kinds = " · ".join(
            f"{kind} {p50:.1f} / {p95:.1f} / {p99:.1f}"
            for kind, (_, p50, p95, p99) in sorted(c["server_ms"].items())
            if kind in ("GET /api/study/next", "POST /api/reviews")  # not the readiness probe
        )
        print(f"{n:>8}  p50 / p95 / p99: {kinds or 'no access log lines'}")
    print()
    print(
        f"{'conns':>8} {'healthz/s':>12} {'ratio':>9} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'p99 ms':>7} {'server CPU':>14} {'loadgen CPU':>11} {'all CPUs':>8}"
    )
    for n, c, h, _ in results:
        print(
            f"{n:>8} {h['rate']:>12.0f} {c['rate'] / h['rate']:>9.1%} {h['p50_ms']:>7.2f} "
            f"{h['p95_ms']:>7.2f} {h['p99_ms']:>7.2f} {_cpu(h):>14} "
            f"{h['loadgen_cpu']:>11.2f} {h['machine_busy']:>8.0%}"
        )
    print(
        "(due L/R/N: learning/review/new cards due per learner at the start, averaged; ratio: "
        "cycles/s / healthz req/s at the same concurrency; CPU columns: cores busy on average — "
        "server = qbank serve and its workers (in brackets: each worker), not PostgreSQL; all "
        "CPUs: share of the whole machine busy, any process)"
    )
    for n, c, h, _ in results:
        problems = {**c["errors"], **h["errors"]}
        if c["empty"]:
            problems["204 nothing due"] = c["empty"]
        if c["conflicts"]:
            problems["409 conflict"] = c["conflicts"]
        if problems:
            print(f"  {n} learners: unexpected answers {problems}")
        if max(c["loadgen_cpu"], h["loadgen_cpu"]) > 0.8:
            print(f"  {n} learners: the load generator was near one core; it may be the limit")
    n, top, health, _ = results[-1]
    print()
    if args.think:
        print("targets: not judged, they are defined for learners without think time")
        return
    print(
        f"target p99 cycle latency at {n} learners <= {P99_TARGET_MS:g} ms: "
        f"{top['p99_ms']:.1f} ms  {_verdict(top['p99_ms'] <= P99_TARGET_MS)}"
    )
    ratio = top["rate"] / health["rate"]
    print(
        f"target cycles/s >= {RATIO_TARGET:.0%} of /healthz req/s at {n} learners: "
        f"{top['rate']:.1f} / {health['rate']:.0f} = {ratio:.1%}  {_verdict(ratio >= RATIO_TARGET)}"
    )


if __name__ == "__main__":
    sys.exit(main())
