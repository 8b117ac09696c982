"""CPU per study cycle in-process: the app without HTTP, on the serving benchmark's bank.

    python bench/study_cpu.py                       # 3,500 cycles, 32 learners, SQLite
    python bench/study_cpu.py --profile out.prof    # and a cProfile of the measured cycles

Builds the same bank and learners as bench/serve_bench.py (10,000 cards, 10 days of history,
daily limits lifted) in a temporary SQLite file, creates the app with `create_app` and runs
its lifespan, then calls it as an ASGI application: GET /api/study/next → POST /api/reviews
(rating Good mostly), the learners taking turns. Prints the process's CPU time per cycle —
the minimum and median of 7 rounds, since single runs on a shared machine vary by ±10% — which
leaves out uvicorn's HTTP handling and the load generator, to tell the app's own cost apart.
The access log is not written (it costs ~20 µs a request, see docs/benchmarks.md).
"""

import argparse
import asyncio
import json
import os
import random
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ROUNDS = 7


async def _call(app: Any, method: str, path: str, token: str, body: bytes | None = None) -> Any:
    headers = [(b"host", b"127.0.0.1"), (b"authorization", f"Bearer {token}".encode())]
    if body is not None:
        headers += [(b"content-type", b"application/json")]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8000),
    }
    messages = [{"type": "http.request", "body": body or b"", "more_body": False}]

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop()
        await asyncio.Event().wait()  # no disconnect: the app never waits for one here
        raise AssertionError

    status: list[int] = []
    chunks: list[bytes] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    if status[0] != 200:
        raise SystemExit(f"{method} {path} answered {status[0]}: {b''.join(chunks)[:200]!r}")
    return json.loads(b"".join(chunks))


async def _cycle(app: Any, token: str, rng: random.Random) -> None:
    card = await _call(app, "GET", "/api/study/next", token)
    rating = rng.choices((1, 2, 3, 4), weights=(0.10, 0.15, 0.60, 0.15))[0]
    body = {"card_id": card["id"], "rating": rating, "version": card["version"]}
    await _call(app, "POST", "/api/reviews", token, json.dumps(body).encode())


async def _measure(app: Any, tokens: list[str], cycles: int, profile: Path | None) -> list[float]:
    rng = random.Random(1)
    for i in range(100):  # warm-up: caches, compiled statements, the pool
        await _cycle(app, tokens[i % len(tokens)], rng)
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    per_round = max(cycles // ROUNDS, 1)
    rounds = []
    for _ in range(ROUNDS):
        started = time.process_time()
        for i in range(per_round):
            await _cycle(app, tokens[i % len(tokens)], rng)
        rounds.append((time.process_time() - started) / per_round)
    if profiler:
        profiler.disable()
        profiler.dump_stats(profile)
    return sorted(rounds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cycles", type=int, default=3500, help="measured cycles in all")
    parser.add_argument("--learners", type=int, default=32, help="learners taking turns")
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--history-days", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", type=Path, help="write a cProfile of the measured cycles")
    args = parser.parse_args(argv)

    import logging

    from bench._synthetic import write_bank
    from bench.serve_bench import _prepare

    with tempfile.TemporaryDirectory(prefix="qbank-study-cpu-") as name:
        tmp = Path(name)
        content = tmp / "content"
        write_bank(content, cards=args.cards, seed=args.seed)
        url = f"sqlite:///{tmp / 'bench.db'}"
        _, tokens, _ = _prepare(url, content, args.learners, args.history_days, args.seed, [])
        os.environ |= {
            "QBANK_DATABASE_URL": url,
            "QBANK_CONTENT_DIR": str(content),
            "QBANK_MODE": "team",
            "QBANK_SECRET_KEY": secrets.token_urlsafe(36),
        }
        from app.config import get_settings
        from app.main import create_app

        logging.getLogger("qbank.access").setLevel(logging.WARNING)
        app = create_app(get_settings())

        async def run() -> list[float]:
            async with app.router.lifespan_context(app):
                return await _measure(app, tokens, args.cycles, args.profile)

        rounds = asyncio.run(run())
    print(
        f"{args.cycles} cycles, {args.learners} learners, SQLite: CPU per cycle "
        f"min {rounds[0] * 1000:.3f} ms, median {rounds[len(rounds) // 2] * 1000:.3f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
