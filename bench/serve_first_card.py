"""A first start: `qbank serve FOLDER` on a folder of notes never imported, to its first card.

    python bench/serve_first_card.py                          # 1,000 cards, this checkout, 3 rounds
    python bench/serve_first_card.py --against /tmp/qbank-main  # another tree too, interleaved

Each round writes nothing new: the folder (bench/_synthetic.py, 1,000 cards in 2 decks and 20
topics, formulas included) is made once, and each start gets a fresh SQLite file, so every start
imports the whole folder as a first start does. Timed from the command's launch to the first
`GET /study` that answers 200 with a card's question on it (polled every 50 ms); target ≤ 10 s.
"""

import argparse
import os
import statistics
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._server import free_port, seconds_until_ready, tree_env  # noqa: E402
from bench._synthetic import write_bank  # noqa: E402

TARGET_S = 10.0
POLL_SECONDS = 0.05


def _first_card(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/study", timeout=5) as answer:
            return answer.status == 200 and b'<h1 class="question"' in answer.read()
    except (urllib.error.URLError, OSError):  # not listening yet, or still starting
        return False


def first_card_seconds(tree: Path | None, folder: Path, tmp: Path, run: int) -> float:
    """Start `qbank serve FOLDER` on a new database; seconds until it shows its first card."""
    port = free_port()
    env = tree_env(tree, QBANK_DATABASE_URL=f"sqlite:///{tmp / f'first-{run}.db'}")
    args = ["serve", str(folder), "--port", str(port)]
    return seconds_until_ready(
        args, env, tmp, lambda: _first_card(port), limit=600, poll=POLL_SECONDS
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another source tree, started in turn")
    args = parser.parse_args(argv)
    trees: dict[str, Path | None] = {"this tree": None}
    if args.against is not None:
        trees[str(args.against)] = args.against.resolve()
    tmp = Path(tempfile.mkdtemp(prefix="qbank-first-card-"))
    folder = tmp / "notes"
    write_bank(folder, cards=args.cards, decks=max(1, args.cards // 500), topics=args.cards // 50)
    print(f"{args.cards:,} cards; load average before: {os.getloadavg()[0]:.2f}")
    times: dict[str, list[float]] = {name: [] for name in trees}
    run = 0
    for _ in range(args.rounds):
        for name, tree in trees.items():
            run += 1
            times[name].append(first_card_seconds(tree, folder, tmp, run))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    worst = 0.0
    for name, values in times.items():
        median = statistics.median(values)
        worst = max(worst, median) if name == "this tree" else worst
        print(f"{name:<32} median {median:6.2f} s  range {min(values):.2f}-{max(values):.2f} s")
    verdict = "PASS" if worst <= TARGET_S else "FAIL"
    print(f"target: first card <= {TARGET_S:g} s after start: {verdict}")
    return 0 if worst <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
