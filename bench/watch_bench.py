"""`qbank serve PATH --watch`: time from saving an edit to the card's new text being served.

    python bench/watch_bench.py                 # a folder of 200 notes (bench/notes_bench.py)
    python bench/watch_bench.py --notes 1000 --edits 10

Starts a real local-mode server with --watch on a free port over a fresh SQLite file, then
edits one card's answer in a note `--edits` times, each time polling the card's API (what the
open study page fetches) every 10 ms until the new text is served. Prints each latency and
their median next to the 1 s target.
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

TARGET_S = 1.0
OLD = "bandwidth, not compute"


def _answer(port: int, card_id: str) -> str:
    url = f"http://127.0.0.1:{port}/api/cards/{urllib.request.quote(card_id, safe='')}"
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())["answer_html"]


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--edits", type=int, default=5)
    args = parser.parse_args(argv)

    from bench._server import start_server, stop_server, tail
    from bench.notes_bench import write_notes

    with tempfile.TemporaryDirectory(prefix="qbank-watch-bench-") as tmp:
        root = Path(tmp) / "notes"
        write_notes(root, args.notes, args.notes * 5)
        url = f"sqlite:///{Path(tmp) / 'watch.db'}"
        process, port, log = start_server(
            url, root, workers=1, tmp=Path(tmp), team=False, watch=True
        )
        try:
            note = "gpu/part0/note-0000.md"
            card_id = _card_id(url, note)
            assert OLD in _answer(port, card_id)
            time.sleep(1.0)  # the watcher is started beside the server
            load = os.getloadavg()[0]
            latencies = []
            text = (root / note).read_text()
            for edit in range(args.edits):
                marker = f"edited {edit} {time.time_ns()}"
                (root / note).write_text(text.replace(OLD, marker, 1))
                start = time.perf_counter()
                while marker not in _answer(port, card_id):
                    if time.perf_counter() - start > 60:
                        raise SystemExit(f"edit {edit} not served after 60 s")
                    time.sleep(0.01)
                latencies.append(time.perf_counter() - start)
                time.sleep(0.5)
        except OSError as exc:
            raise SystemExit(f"the server stopped answering ({exc}):\n{tail(log)}") from None
        finally:
            stop_server(process)
    median = statistics.median(latencies)
    print(
        f"folder: {args.notes:,} notes; {os.cpu_count()} CPUs, load average {load:.1f}; "
        f"one card's answer edited {args.edits} times"
    )
    print("save → served, each     " + " ".join(f"{s:.2f}" for s in latencies) + " s")
    verdict = "PASS" if median <= TARGET_S else "FAIL"
    print(f"median                  {median:.2f} s   target <= {TARGET_S:g} s   {verdict}")
    return 0 if median <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
