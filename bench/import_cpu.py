"""Where a full import's CPU goes besides KaTeX: one process, the main thread's CPU by stage.

    python bench/import_cpu.py                              # 10,000 cards, this checkout
    python bench/import_cpu.py --against /tmp/qbank-main    # another tree too, in turn

The bank is bench/_synthetic.py's, imported into a new SQLite file by `import_content` in one
process (no render workers), so every stage runs in the main thread and KaTeX in its own: the
main thread's CPU time is all the work that is not KaTeX's. Stages are timed by wrapping the
functions that do them (thread CPU time, so the waits for KaTeX count as nothing).
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

STAGES = [  # (module, function, what it does)
    ("app.content.compile.build", "parse_source", "parse (outline, recognisers, spans)"),
    ("app.content.compile.build", "compile_item", "compile (walk, render, forms; waits)"),
    ("app.content.compile.render", "readable_math", "  of which formulas as text"),
    ("app.content.bank.sync", "write_decks", "write decks and cards"),
    ("app.content.bank.sync", "refresh_card_entries", "write their search entries"),
    ("app.content.bank.sync", "_as_reported", "keep what the report needs"),
    ("app.content.bank.sync", "finish_import", "write the rest (search index, topics)"),
]


def _wrap(module: Any, name: str, label: str, spent: collections.Counter[str]) -> None:
    real: Callable[..., Any] = getattr(module, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return real(*args, **kwargs)
        finally:
            spent[label] += time.thread_time() - start

    setattr(module, name, timed)


def _phase(root: Path) -> dict[str, float]:
    """One import in this process; the main thread's CPU in all and by stage."""
    import importlib

    from sqlmodel import SQLModel

    from app.content.compile import build
    from app.infra import models  # noqa: F401  (registers the tables)
    from app.infra.db import Database, make_engine

    build.PARALLEL_MIN_CHARS = 10**12  # one process: every stage in this thread
    spent: collections.Counter[str] = collections.Counter()
    for module, name, label in STAGES:
        _wrap(importlib.import_module(module), name, label, spent)
    from app.content.bank.sync import import_content

    url = f"sqlite:///{tempfile.mkdtemp(prefix='qbank-import-cpu-')}/bank.db"
    engine = make_engine(url)
    SQLModel.metadata.create_all(engine)
    engine.dispose()
    database = Database.open(url)
    cpu, wall = time.thread_time(), time.perf_counter()
    import_content(root, database)
    figures = {"main thread": time.thread_time() - cpu, "wall": time.perf_counter() - wall}
    return figures | dict(spent)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--against", type=Path, help="another source tree, measured in turn")
    parser.add_argument("--phase", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase:
        print(json.dumps(_phase(args.phase)))
        return 0

    sys.path.insert(0, str(ROOT))
    from bench._synthetic import write_bank

    trees: dict[str, Path] = {"this tree": ROOT}
    if args.against is not None:
        trees[str(args.against)] = args.against.resolve()
    root = Path(tempfile.mkdtemp(prefix="qbank-import-cpu-")) / "content"
    write_bank(root, cards=args.cards, decks=max(1, args.cards // 500), topics=args.cards // 50)
    results: dict[str, dict[str, float]] = {}
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for name, tree in trees.items():
        env = {**os.environ, "PYTHONPATH": str(tree)}
        command = [sys.executable, __file__, "--phase", str(root)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        results[name] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    labels = ["main thread", *(label for _, _, label in STAGES), "wall"]
    print(f"{'CPU seconds':<40}" + "".join(f"{name[-20:]:>22}" for name in results))
    for label in labels:
        row = "".join(f"{figures.get(label, 0.0):>20.2f} s" for figures in results.values())
        print(f"{label:<40}{row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
