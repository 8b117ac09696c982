"""Capacity: how many learners one real `qbank serve` keeps within p99 <= 50 ms per card.

    python bench/serve_bench.py                          # SQLite (temp file), 2 workers
    python bench/serve_bench.py \\
        --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
    python bench/serve_bench.py --learners 400,800,1200 --think 2 --duration 20 --warmup 15
    python bench/serve_bench.py --think 0 --learners 1,8,32     # back to back, no think time
    python bench/serve_bench.py --keep /tmp/qbank-serve   # set up once, later runs reuse it
    python bench/serve_bench.py --setup-sql "CREATE INDEX … ON card (…)"   # try an index

What it does:
1. writes the synthetic bank (bench/_synthetic.py) to a temp dir and imports it into a fresh
   database: a SQLite file in the temp dir, or a dedicated schema in the PostgreSQL database of
   --database-url (`?options=-csearch_path=…`), dropped at the end (VACUUM ANALYZE of its
   tables after set-up, as autovacuum would do shortly after an import);
2. creates as many team-mode accounts as the largest level has learners, each with a personal
   API token and --history-days of past study (bench/_setup.py), daily limits lifted;
3. starts `qbank serve --port <free> --workers W` as a user would, access log included
   (bench/_server.py), and waits for /healthz;
4. for each level N, in increasing order: a load-generator process (bench/_loadgen.py) opens
   one keep-alive connection per learner for the first N accounts; each learner asks for its
   first card, then rates one card per request (POST /api/reviews, whose answer holds the next
   card), pausing --think seconds on average (0.5-1.5x) after each, for --warmup + --duration
   seconds; only answers inside the measured window count. It stops after the first level whose
   p99 is over the target.

It prints, per level, cards/s, the p50/p95/p99 of a card's request, the CPU of the server (per
worker), of the load generator and of the whole machine, and the server's own time per
request from its access log; then the capacity: the largest level within the target. Exits 1
when a request failed or no level was within the target.
"""

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

P99_TARGET_MS = 50.0


def _cpu(phase: dict[str, Any]) -> str:
    """Server cores busy, and with several workers how they were shared: '1.04 (0.98+0.06)'."""
    split = "+".join(f"{w:.2f}" for w in phase["worker_cpu"])
    return f"{phase['server_cpu']:.2f}" + (f" ({split})" if split else "")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--database-url",
        help="PostgreSQL URL: a dedicated schema is created in its database and dropped at the "
        "end (default: a fresh SQLite file in the temp dir)",
    )
    parser.add_argument("--workers", type=int, default=2, help="qbank serve --workers (default 2)")
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds per level")
    parser.add_argument("--warmup", type=float, default=15.0, help="unmeasured seconds first")
    parser.add_argument(
        "--learners",
        default="400,800,1200,1600,2000",
        help="levels of learners studying at once, in increasing order",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="mean pause of each learner after each card (default 2; 0: back to back)",
    )
    parser.add_argument(
        "--target-p99", type=float, default=P99_TARGET_MS, help="ms per card (default 50)"
    )
    parser.add_argument("--all-levels", action="store_true", help="go on past a missed target")
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--decks", type=int, default=20)
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--history-days", type=int, default=3, help="days of past sessions")
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
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="SQLite: keep the set-up (database and accounts) in DIR, and start later runs from "
        "a copy of it instead of setting up again",
    )
    parser.add_argument("--loadgen", type=Path, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.loadgen:
        from bench._loadgen import loadgen_main

        return loadgen_main(args.loadgen)

    try:
        levels = [int(n) for n in args.learners.split(",") if n.strip()]
    except ValueError:
        levels = []
    if not levels or min(levels) < 1 or levels != sorted(levels):
        parser.error("--learners takes increasing positive integers, e.g. 400,800,1200")

    from app.config import Settings
    from bench._loadgen import run_load
    from bench._server import server_times, start_server, stop_server
    from bench._setup import drop_schema, postgres_schema, prepare
    from bench._synthetic import write_bank

    schema = None
    base_url = ""
    if args.keep and args.database_url:
        parser.error("--keep is for SQLite")
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
            schema, url = postgres_schema(base_url)
        else:
            url = f"sqlite:///{tmp / 'bench.db'}"
        process = None
        results: list[dict[str, Any]] = []
        try:
            setup, tokens, queues = _prepared(args, tmp, url, content, levels[-1], prepare)
            load = os.getloadavg()[0]
            process, port, log = start_server(url, content, args.workers, tmp)
            for n in levels:
                logged = log.stat().st_size
                spec = {
                    "host": "127.0.0.1",
                    "port": port,
                    "server_pid": process.pid,
                    "concurrency": n,
                    "warmup": args.warmup,
                    "duration": args.duration,
                    "seed": args.seed * 1000 + n,
                    "think": args.think,
                    "kind": "cycles",
                    "tokens": tokens[:n],
                }
                phase = run_load(spec, tmp)
                phase["server_ms"] = server_times(log, logged)
                results.append(phase)
                _print_level(phase)
                if phase["p99_ms"] > args.target_p99 and not args.all_levels:
                    break
            if args.keep_server:
                input(f"server on http://127.0.0.1:{port} (pid {process.pid}); Enter stops it ")
        finally:
            if process is not None:
                stop_server(process)
            if schema:
                drop_schema(base_url, schema)

    _report(args, bank, setup, queues, results, schema, load)
    failed = any(r["errors"] or r["empty"] for r in results)
    within = [r for r in results if r["p99_ms"] <= args.target_p99]
    return 1 if failed or not within else 0


def _prepared(
    args: argparse.Namespace, tmp: Path, url: str, content: Path, learners: int, prepare: Any
) -> tuple[dict[str, float], list[str], list[dict[str, int]]]:
    """The set-up: made now, or (SQLite, --keep) a copy of the one kept in that folder.

    Every run over a kept set-up starts from the same database: the kept file is copied, so
    one run's ratings never become the next one's history.
    """
    kept = args.keep / "setup.json" if args.keep else None
    if kept and kept.exists():
        made = json.loads(kept.read_text())
        if made["learners"] >= learners and made["args"] == _setup_args(args):
            shutil.copy(args.keep / "bench.db", tmp / "bench.db")
            return made["setup"], made["tokens"], made["queues"]
    setup, tokens, queues = prepare(
        url, content, learners, args.history_days, args.seed, args.setup_sql
    )
    if kept:
        args.keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp / "bench.db", args.keep / "bench.db")
        kept.write_text(
            json.dumps(
                {
                    "learners": learners,
                    "args": _setup_args(args),
                    "setup": setup,
                    "tokens": tokens,
                    "queues": queues,
                }
            )
        )
    return setup, tokens, queues


def _setup_args(args: argparse.Namespace) -> list[Any]:
    return [args.cards, args.decks, args.topics, args.history_days, args.seed, args.setup_sql]


def _print_level(r: dict[str, Any]) -> None:
    print(
        f"  {r['concurrency']} learners: {r['rate']:.1f} cards/s, p99 {r['p99_ms']:.1f} ms",
        file=sys.stderr,
        flush=True,
    )


def _report(
    args: argparse.Namespace,
    bank: Any,
    setup: dict[str, float],
    queues: list[dict[str, int]],
    results: list[dict[str, Any]],
    schema: str | None,
    load: float,
) -> None:
    database = f"PostgreSQL (schema {schema}, dropped)" if schema else "SQLite (temp file)"
    reviews, learners = int(setup["reviews"]), len(queues)
    due = "/".join(
        f"{sum(q[k] for q in queues) / len(queues):.0f}" for k in ("learning", "review", "new")
    )
    print(
        f"bank: {bank.cards:,} cards in {bank.decks} decks, {bank.topics} topics; imported in "
        f"{setup['import']:.1f} s"
    )
    print(
        f"history: {learners} team accounts with API tokens, {reviews:,} past ratings "
        f"({reviews / learners:.0f} each, {args.history_days} days) in {setup['history']:.1f} s; "
        f"daily limits lifted to 9999; due learning/review/new per learner at the start: {due}"
    )
    print(f"server: qbank serve --workers {args.workers}, team mode, {database}")
    print(
        f"machine: {os.cpu_count()} CPUs shared by the server, its database and the load "
        f"generator; load average {load:.1f} before the run; Python {platform.python_version()}"
    )
    pause = (
        f"then {args.think:g} s of thinking on average (0.5-1.5x)"
        if args.think
        else "back to back (no think time)"
    )
    print(
        f"each level: {args.warmup:g} s warm-up + {args.duration:g} s measured; one "
        f"POST /api/reviews per card (its answer holds the next card), {pause}"
    )
    print()
    print(
        f"{'learners':>8} {'cards/s':>8} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
        f"{'server CPU':>14} {'loadgen CPU':>11} {'all CPUs':>8}  server's own p50/p95/p99 ms"
    )
    for r in results:
        own = r["server_ms"].get("POST /api/reviews")
        own_text = f"{own[1]:.1f} / {own[2]:.1f} / {own[3]:.1f}" if own else "no access log"
        print(
            f"{r['concurrency']:>8} {r['rate']:>8.1f} {r['p50_ms']:>7.1f} {r['p95_ms']:>7.1f} "
            f"{r['p99_ms']:>7.1f} {_cpu(r):>14} {r['loadgen_cpu']:>11.2f} "
            f"{r['machine_busy']:>8.0%}  {own_text}"
        )
        problems = dict(r["errors"])
        if r["empty"]:
            problems["204 nothing due"] = r["empty"]
        if r["conflicts"]:
            problems["409 conflict"] = r["conflicts"]
        if problems:
            print(f"{'':>8} unexpected answers {problems}")
        if r["loadgen_cpu"] > 0.8:
            print(f"{'':>8} the load generator was near one core; it may be the limit")
    print(
        "(CPU columns: cores busy on average; server = qbank serve and its workers, in brackets "
        "each worker, not PostgreSQL; all CPUs: share of the whole machine busy, any process; "
        "server's own: the access log's time per POST /api/reviews, warm-up included)"
    )
    print()
    within = [r["concurrency"] for r in results if r["p99_ms"] <= args.target_p99]
    over = [r for r in results if r["p99_ms"] > args.target_p99]
    pause = f"{args.think:g} s think time" if args.think else "no think time"
    if not within:
        least = results[0]["concurrency"]
        print(f"capacity at {pause}, p99 <= {args.target_p99:g} ms: below {least} learners")
    else:
        beyond = (
            f"; {over[0]['concurrency']} gave {over[0]['p99_ms']:.1f} ms"
            if over
            else (" (the largest level tried)")
        )
        print(f"capacity at {pause}, p99 <= {args.target_p99:g} ms: {max(within)} learners{beyond}")


if __name__ == "__main__":
    sys.exit(main())
