"""A vault of many notes: import, no-op re-import, every page a learner opens, and --watch.

    python bench/vault_bench.py                          # 20,000 notes in 200 folders, SQLite
    python bench/vault_bench.py --notes 2000 --folders 40
    python bench/vault_bench.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/vault_bench
    python bench/vault_bench.py --skip-watch --runs 5

Writes a vault (bench/_vault.py: one-question notes with wikilinks, no formulas), imports it
and imports it again unchanged, each in a fresh process (bench/import_bench.py's phase: time
of the import call, peak RSS of the process and its workers). Then starts a real `qbank serve`
(local mode, one worker) on the imported database and asks each page --runs times after one
warm-up request, printing its median time (client side, whole response) and its size next to
the targets. Last, a server with --watch over the same vault: a note is edited and the card's
API polled until it serves the new text. The database's qbank tables are dropped and recreated
first: never point --database-url at data you want to keep. Exits 1 when a target is missed.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

IMPORT_TARGET_S = 30.0
NOOP_TARGET_S = 2.0
RSS_TARGET_MIB = 500.0
PAGE_TARGET_MS = 300.0
PAGE_TARGET_KB = 200.0
WATCH_TARGET_S = 1.0

PAGES = {
    "/": "/",
    "folder page": "/folders/folder-000",
    "/study": "/study",
    "/api/study/next": "/api/study/next",
    "/stats": "/stats",
    "/search": "/search?q=cache",
    "/import": "/import",
    "/topics": "/topics",
}


def _get(port: int, path: str) -> tuple[float, int, int]:
    start = time.perf_counter()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=300) as response:
        body = response.read()
        status = response.status
    return time.perf_counter() - start, len(body), status


def _line(name: str, value: str, target: str = "", ok: bool | None = None) -> bool:
    verdict = "" if ok is None else ("PASS" if ok else "FAIL")
    print(f"{name:<22}{value:>22}   {target:<24}{verdict}".rstrip())
    return ok is not False


def _pages(url: str, root: Path, tmp: Path, runs: int) -> bool:
    from bench._server import start_server, stop_server

    process, port, _ = start_server(url, root, workers=1, tmp=tmp, team=False)
    ok = True
    try:
        for name, path in PAGES.items():
            _get(port, path)  # warm: the first request of a kind fills the server's caches
            times, size, status = [], 0, 0
            for _ in range(runs):
                seconds, size, status = _get(port, path)
                times.append(seconds)
            median = statistics.median(times) * 1000
            good = status == 200 and median <= PAGE_TARGET_MS and size <= PAGE_TARGET_KB * 1000
            ok &= _line(
                name,
                f"{median:.0f} ms {size / 1000:.0f} KB",
                f"<= {PAGE_TARGET_MS:g} ms, {PAGE_TARGET_KB:g} KB",
                good,
            )
    finally:
        stop_server(process)
    return ok


def _card_id(url: str, path: str) -> str:
    from sqlmodel import Session, col, select

    from app.infra.db import make_engine
    from app.infra.models import Card

    engine = make_engine(url)
    with Session(engine) as session:
        query = select(Card.id).where(Card.source_path == path).order_by(col(Card.position))
        card_id = session.exec(query).first()
    engine.dispose()
    assert card_id is not None, f"no card from {path}"
    return card_id


def _answer(port: int, card_id: str) -> str:
    url = f"http://127.0.0.1:{port}/api/cards/{urllib.request.quote(card_id, safe='')}"
    with urllib.request.urlopen(url, timeout=30) as response:
        return str(json.loads(response.read())["answer_html"])


def _watch(url: str, root: Path, tmp: Path, edits: int) -> bool:
    from bench._server import start_server, stop_server

    process, port, _ = start_server(url, root, workers=1, tmp=tmp, team=False, watch=True)
    note = next(str(p.relative_to(root)) for p in root.glob("*/note-00007.md"))
    try:
        card_id = _card_id(url, note)
        time.sleep(1.0)  # the watcher starts beside the server
        text = (root / note).read_text()
        latencies = []
        for edit in range(edits):
            marker = f"edited{edit}x{time.time_ns()}"
            (root / note).write_text(text.replace("See also", marker, 1))
            start = time.perf_counter()
            while marker not in _answer(port, card_id):
                if time.perf_counter() - start > 120:
                    raise SystemExit(f"edit {edit} not served after 120 s")
                time.sleep(0.01)
            latencies.append(time.perf_counter() - start)
            time.sleep(0.5)
    finally:
        stop_server(process)
    median = statistics.median(latencies)
    each = " ".join(f"{s:.2f}" for s in latencies)
    return _line("edit under --watch", f"{median:.2f} s ({each})", "<= 1 s", median <= 1.0)


def _reset_database(url: str) -> None:
    """Drop the qbank tables and make them again as a server's first start does."""
    from sqlalchemy import text
    from sqlmodel import SQLModel

    from app.infra import models  # noqa: F401  (registers the tables)
    from app.infra.db import Database, make_engine
    from app.infra.seencount import drop_triggers

    engine = make_engine(url)
    with engine.begin() as connection:
        drop_triggers(connection)
        SQLModel.metadata.drop_all(connection)
        connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    engine.dispose()
    database = Database.open(url)
    database.upgrade()
    database.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--folders", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--skip-watch", action="store_true")
    parser.add_argument(
        "--database-url",
        help="default: a fresh SQLite file in the temp dir; its tables are dropped and recreated",
    )
    args = parser.parse_args(argv)

    from bench._vault import write_vault
    from bench.import_bench import _run_phase

    with tempfile.TemporaryDirectory(prefix="qbank-vault-bench-") as name:
        tmp = Path(name)
        root = tmp / "vault"
        write_vault(root, notes=args.notes, folders=args.folders)
        # Files written this instant are read again by every import (their stamp could still
        # change unseen), as a vault just checked out would be once.
        time.sleep(2.5)
        url = args.database_url or f"sqlite:///{tmp / 'vault.db'}"
        _reset_database(url)
        load = os.getloadavg()[0]
        full = _run_phase(root, url)
        noop = _run_phase(root, url)
        print(
            f"vault: {args.notes:,} notes in {args.folders} folders; "
            f"{'PostgreSQL' if url.startswith('postgresql') else 'SQLite'}; "
            f"{os.cpu_count()} CPUs, load average {load:.1f} at the start"
        )
        ok = _line(
            "import",
            f"{full['seconds']:.1f} s {float(full['peak_rss']) / 2**20:.0f} MiB",
            f"<= {IMPORT_TARGET_S:g} s, {RSS_TARGET_MIB:g} MiB",
            full["seconds"] <= IMPORT_TARGET_S and full["peak_rss"] <= RSS_TARGET_MIB * 2**20,
        )
        per_note = 1000 * float(full["seconds"]) / args.notes
        _line("  per note", f"{per_note:.2f} ms")
        ok &= _line(
            "no-op re-import",
            f"{noop['seconds']:.2f} s",
            f"<= {NOOP_TARGET_S:g} s",
            noop["seconds"] <= NOOP_TARGET_S and noop["files_read"] == 0,
        )
        ok &= _pages(url, root, tmp, args.runs)
        if not args.skip_watch:
            ok &= _watch(url, root, tmp, args.edits)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
