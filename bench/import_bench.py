"""Content import benchmark: full import, no-op re-import and peak memory on a synthetic bank.

    python bench/import_bench.py                      # 10,000 cards, 20 decks, 200 topics, SQLite
    python bench/import_bench.py --cards 2000 --decks 4 --topics 50
    python bench/import_bench.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
    python bench/import_bench.py --profile /tmp/import.prof   # cProfile the full import

The floor is KaTeX's own time for the bank's distinct formulas, rendered one after another in
a fresh process of their own (no parsing, no database), measured in the same run; the full
import is judged against it per core: full import ≤ 2 × floor / cores.

The bank comes from bench/_synthetic.py. Each phase runs `import_content` in a fresh subprocess,
so its memory figures belong to that phase alone; times cover the `import_content` call only, not
interpreter start-up. Peak RSS is the import process plus its render workers, sampled every 20 ms
(psutil), and never less than the import process's own ru_maxrss. The database's qbank tables
are dropped and recreated first: never point --database-url at data you want to keep.
Exits 1 when a target is missed or the import did not do what it should.
"""

import argparse
import contextlib
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FULL_TARGET_S = 20.0
FLOOR_RATIO_TARGET = 2.0
NOOP_TARGET_S = 1.0
RSS_TARGET_MB = 500.0
MB = 1_000_000
_RESCAN_EVERY = 25  # samples between looks for new child processes


class _TreeRss:
    """Sample the summed RSS of this process and its children (the render workers)."""

    def __init__(self, interval: float = 0.02) -> None:
        self.peak = 0
        self.most_workers = 0
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            import psutil
        except ImportError:  # a dev dependency; without it only ru_maxrss is known
            return
        me = psutil.Process()
        # Finding the children scans every process on the machine: done every few samples only,
        # since the render workers live for the whole import. Done every sample, this thread
        # cost the import process seconds of CPU and the import its GIL.
        children: list[Any] = []
        workers: set[int] = set()  # pids of render workers, not multiprocessing's tracker
        for sample in itertools.count():
            if sample % _RESCAN_EVERY == 0:
                children = me.children(recursive=True)
                for child in children:
                    if child.pid not in workers:
                        with contextlib.suppress(psutil.Error):
                            if "spawn_main" in " ".join(child.cmdline()):
                                workers.add(child.pid)
                self.most_workers = max(self.most_workers, sum(c.pid in workers for c in children))
            total = 0
            for proc in [me, *children]:
                with contextlib.suppress(psutil.Error):  # a worker that just exited
                    total += proc.memory_info().rss
            self.peak = max(self.peak, total)
            if self._stop.wait(self._interval):
                return

    def __enter__(self) -> "_TreeRss":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _cpu_seconds() -> float:
    """User + system CPU of this process and of its reaped children."""
    import resource

    return sum(
        usage.ru_utime + usage.ru_stime
        for usage in (
            resource.getrusage(resource.RUSAGE_SELF),
            resource.getrusage(resource.RUSAGE_CHILDREN),
        )
    )


def _phase(root: Path, url: str, profile: str | None) -> dict[str, float | int]:
    """Run one import in this (fresh) process and return its figures."""
    import resource

    from app.content.bank.sync import import_content
    from app.infra.db import Database

    database = Database.open(url)
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    cpu = _cpu_seconds()
    with _TreeRss() as tree:
        start = time.perf_counter()
        report = import_content(root, database)
        seconds = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu
    if profiler:
        profiler.disable()
        profiler.dump_stats(profile)
    database.dispose()
    own_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "peak_rss": max(tree.peak, own_peak),
        "peak_rss_main": own_peak,
        "peak_rss_worker": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
        "workers": tree.most_workers,
        "added": report.added,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "retired": report.retired,
        "files_read": report.files_read,
        "formulas_rendered": report.formulas_rendered,
        "warnings": len(report.warnings),
    }


def _floor(root: Path) -> dict[str, float | int]:
    """KaTeX alone: every distinct formula of the notes under `root`, rendered in turn."""
    from app.content.compile.render import MAX_FORMULA_CHARS, _katex
    from app.content.notes.markdown import MATH_TYPES, parser

    formulas: dict[tuple[str, bool], None] = {}

    def walk(tokens: list[Any]) -> None:
        for token in tokens:
            if token.type in MATH_TYPES and len(token.content.strip()) <= MAX_FORMULA_CHARS:
                formulas[(token.content.strip(), MATH_TYPES[token.type])] = None
            walk(token.children or [])

    for path in sorted(root.rglob("*.md")):
        walk(parser().parse(path.read_text(encoding="utf-8")))
    _katex("x", False)  # the engine's start-up is not the formulas' time
    start = time.perf_counter()
    for tex, display in formulas:
        with contextlib.suppress(Exception):
            _katex(tex, display)
    return {"seconds": time.perf_counter() - start, "formulas": len(formulas)}


def _run_phase(
    root: Path, url: str, profile: str | None = None, *, floor: bool = False
) -> dict[str, float | int]:
    command = [sys.executable, __file__, "--phase", "--root", str(root), "--database-url", url]
    command += ["--floor"] if floor else []
    if profile:
        command += ["--profile", profile]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"import phase failed with exit code {done.returncode}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _reset_database(url: str) -> None:
    from sqlmodel import SQLModel

    from app.infra import models  # noqa: F401  (registers the tables)
    from app.infra.db import make_engine
    from app.infra.seencount import drop_triggers

    engine = make_engine(url)
    with engine.begin() as connection:  # the triggers' functions outlive the tables on PostgreSQL
        drop_triggers(connection)
        SQLModel.metadata.drop_all(connection)
    SQLModel.metadata.create_all(engine)
    engine.dispose()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _line(name: str, value: str, target: str = "", ok: bool | None = None) -> None:
    verdict = "" if ok is None else ("PASS" if ok else "FAIL")
    print(f"{name:<26}{value:>18}   {target:<18}{verdict}".rstrip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--decks", type=int, default=20)
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--database-url",
        help="default: a fresh SQLite file in the temp dir; its tables are dropped and recreated",
    )
    parser.add_argument("--profile", metavar="FILE", help="write cProfile stats of the full import")
    parser.add_argument("--phase", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--floor", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.phase and args.floor:
        print(json.dumps(_floor(args.root)))
        return 0
    if args.phase:
        print(json.dumps(_phase(args.root, args.database_url, args.profile)))
        return 0

    from bench._synthetic import write_bank

    with tempfile.TemporaryDirectory(prefix="qbank-import-bench-") as tmp:
        root = Path(tmp) / "content"
        start = time.perf_counter()
        bank = write_bank(
            root, cards=args.cards, decks=args.decks, topics=args.topics, seed=args.seed
        )
        generated = time.perf_counter() - start
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        _reset_database(url)
        load = os.getloadavg()[0]
        full = _run_phase(root, url, args.profile)
        noop = _run_phase(root, url)
        floor = _run_phase(root, url, floor=True)

    print(
        f"bank: {bank.cards:,} cards in {bank.decks} decks, {bank.topics} topics; "
        f"{bank.display_formulas:,} display formulas in cards ({bank.pooled_display:,} from the "
        f"shared pool), {bank.inline_formulas:,} inline; generated in {generated:.2f} s"
    )
    print(
        f"database: {url.split(':', 1)[0]}{'' if args.database_url else ' (temp file)'}; "
        f"{os.cpu_count()} CPUs, load average {load:.1f} before the full import"
    )
    seconds = full["seconds"]
    _line(
        "full import",
        f"{seconds:.2f} s",
        f"target <= {FULL_TARGET_S:g} s",
        seconds <= FULL_TARGET_S,
    )
    cores = _cores()
    per_core = floor["seconds"] / cores
    ratio = seconds / per_core
    _line(
        "  × floor per core",
        f"{ratio:.2f} ×",
        f"target <= {FLOOR_RATIO_TARGET:g} ×",
        ratio <= FLOOR_RATIO_TARGET,
    )
    _line(
        "  floor: KaTeX alone",
        f"{floor['seconds']:.2f} s",
        f"({floor['formulas']:,} formulas, {cores} cores: {per_core:.2f} s per core)",
    )
    _line("  CPU time (all procs)", f"{full['cpu_seconds']:.2f} s")
    _line("  render workers", f"{full['workers']}")
    _line("  cards", f"{full['added'] / seconds:,.0f} cards/s")
    _line(
        "  distinct formulas",
        f"{full['formulas_rendered'] / seconds:,.0f} formulas/s",
        f"({full['formulas_rendered']:,} rendered)",
    )
    _line(
        "no-op re-import",
        f"{noop['seconds']:.2f} s",
        f"target <= {NOOP_TARGET_S:g} s",
        noop["seconds"] <= NOOP_TARGET_S,
    )
    _line(
        "peak RSS, full import",
        f"{full['peak_rss'] / MB:,.0f} MB",
        f"target <= {RSS_TARGET_MB:g} MB",
        full["peak_rss"] <= RSS_TARGET_MB * MB,
    )
    _line("  import process alone", f"{full['peak_rss_main'] / MB:,.0f} MB")
    _line("  largest render worker", f"{full['peak_rss_worker'] / MB:,.0f} MB")
    _line("peak RSS, no-op", f"{noop['peak_rss'] / MB:,.0f} MB")

    problems = []
    if full["added"] != bank.cards or full["warnings"]:
        problems.append(f"full import added {full['added']} cards, {full['warnings']} warnings")
    if noop["files_read"] or noop["added"] or noop["updated"] or noop["unchanged"] != bank.cards:
        problems.append(f"the re-import was not a no-op: {noop}")
    for problem in problems:
        print(f"check failed: {problem}")
    if args.profile:
        print(f"profile of the full import: {args.profile}")

    passed = (
        seconds <= FULL_TARGET_S
        and ratio <= FLOOR_RATIO_TARGET
        and noop["seconds"] <= NOOP_TARGET_S
        and full["peak_rss"] <= RSS_TARGET_MB * MB
    )
    return 0 if passed and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
