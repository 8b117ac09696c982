"""Start-up: from `qbank serve` to its first /healthz answer, one worker and two, two trees.

    python bench/serve_start.py                               # this checkout, SQLite, 7 rounds
    git archive main | tar -x -C /tmp/qbank-main               # another revision, as files
    python bench/serve_start.py --against /tmp/qbank-main     # both, their rounds interleaved
    python bench/serve_start.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test

Each start is `qbank serve --port <free> --workers W` as a user runs it (the installed console
script, local mode, a deck of 24 cards already imported, so a start finds its bank current),
timed from the command's launch to the first 200 from /healthz, polled every 10 ms; the server
is then stopped. With --against, the other tree's `app` package is put first on PYTHONPATH for
its starts, each tree has a bank of its own, and the trees take turns within every round, so
a machine that gets busier or quieter during the run weighs on both alike. It prints the
median and the range per tree and worker count, and the load average before and after.
"""

import argparse
import os
import socket
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._server import free_port, seconds_until_ready, tree_env  # noqa: E402

POLL_SECONDS = 0.01
DECK = ["---", "title: Drill", "slug: drill", "---", ""] + [
    line for n in range(1, 25) for line in (f"## {n}. Question {n}", "", f"Answer {n}.", "")
]


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:  # refused before the port is bound; reset or timed out while starting
        return False


def start_seconds(tree: Path | None, url: str, content: Path, workers: int, tmp: Path) -> float:
    """Launch `qbank serve`, wait for its first /healthz answer, stop it; the seconds between."""
    port = free_port()
    env = tree_env(tree, QBANK_DATABASE_URL=url, QBANK_CONTENT_DIR=str(content))
    args = ["serve", "--port", str(port), "--workers", str(workers)]
    return seconds_until_ready(args, env, tmp, lambda: _answers(port), limit=300, poll=POLL_SECONDS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=7, help="starts per tree and worker count")
    parser.add_argument("--workers", default="1,2", help="worker counts to start (default 1,2)")
    parser.add_argument(
        "--against", type=Path, help="another source tree (a checkout of another revision)"
    )
    parser.add_argument(
        "--database-url",
        help="PostgreSQL URL: a schema per tree is created in its database and dropped at the "
        "end (default: a SQLite file per tree in the temp dir)",
    )
    args = parser.parse_args(argv)
    worker_counts = [int(w) for w in args.workers.split(",")]
    trees: dict[str, Path | None] = {"this tree": None}
    if args.against is not None:
        if not (args.against / "app" / "cli.py").is_file():
            parser.error(f"{args.against} holds no app/cli.py")
        trees[str(args.against)] = args.against.resolve()

    from bench._setup import drop_schema, postgres_schema

    tmp = Path(tempfile.mkdtemp(prefix="qbank-start-"))
    content = tmp / "content"
    (content / "decks").mkdir(parents=True)
    (content / "decks" / "drill.md").write_text("\n".join(DECK), encoding="utf-8")
    urls: dict[str, str] = {}
    schemas: list[str] = []
    try:
        for name in trees:
            if args.database_url:
                schema, urls[name] = postgres_schema(args.database_url)
                schemas.append(schema)
            else:
                urls[name] = f"sqlite:///{tmp / f'bank-{len(urls)}.db'}"
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for name, tree in trees.items():  # the first start imports the deck: not measured
            start_seconds(tree, urls[name], content, 1, tmp)
        times: dict[tuple[str, int], list[float]] = {}
        for _ in range(args.rounds):
            for workers in worker_counts:
                for name, tree in trees.items():
                    seconds = start_seconds(tree, urls[name], content, workers, tmp)
                    times.setdefault((name, workers), []).append(seconds)
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"{'tree':<32} {'workers':>7} {'median':>8} {'range':>14}")
        for (name, workers), values in times.items():
            span = f"{min(values):.2f}-{max(values):.2f} s"
            print(f"{name:<32} {workers:>7} {statistics.median(values):>6.2f} s {span:>14}")
    finally:
        for schema in schemas:
            drop_schema(args.database_url, schema)
    return 0


if __name__ == "__main__":
    sys.exit(main())
