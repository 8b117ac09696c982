"""Search benchmark: query time over a synthetic bank of 10,000 cards, on SQLite or PostgreSQL.

    python bench/search_bench.py                      # 10,000 cards, 20 decks, 200 topics, SQLite
    python bench/search_bench.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
    python bench/search_bench.py --cards 2000 --repeat 5

The bank comes from bench/_synthetic.py and is imported once (not timed); then each query runs
`app.search.search` --repeat times in one session, after one untimed warm-up run, and the median
and worst are printed with the number of hits. The qbank tables of --database-url are dropped
and recreated first: never point it at data you want to keep.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Chinese two-character words, English words and phrases, full-width and accented forms, a
# word that is everywhere, one that is rare, and a miss (which also computes suggestions).
QUERIES = (
    "融合",
    "显存",
    "roofline",
    "ＧＥＭＭ",
    "kernel fusion",
    "attention 显存",
    "FlashAttention",
    "专题 042",
    "École",
    "gemn",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--decks", type=int, default=20)
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    from sqlmodel import Session, SQLModel

    from app.content.sync import import_content
    from app.db import create_schema, make_engine
    from app.search import search
    from bench._synthetic import write_bank

    with tempfile.TemporaryDirectory(prefix="qbank-search-bench-") as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        engine = make_engine(url)
        SQLModel.metadata.drop_all(engine)
        create_schema(engine)
        root = Path(tmp) / "content"
        write_bank(root, cards=args.cards, decks=args.decks, topics=args.topics, seed=0)
        started = time.perf_counter()
        import_content(root, engine)
        imported = time.perf_counter() - started
        print(f"{engine.dialect.name}: {args.cards} cards, {args.topics} topics, ", end="")
        print(f"imported in {imported:.1f} s; {args.repeat} runs per query")
        print(f"{'query':<16} {'hits':>5} {'median ms':>10} {'max ms':>8}")
        medians = []
        with Session(engine) as session:
            for query in QUERIES:
                result = search(session, query)
                times = []
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    result = search(session, query)
                    times.append((time.perf_counter() - started) * 1000)
                medians.append(statistics.median(times))
                hits = len(result.hits) if hasattr(result, "hits") else len(result)
                print(f"{query:<16} {hits:>5} {medians[-1]:>10.1f} {max(times):>8.1f}")
        print(f"{'all queries':<16} {'':>5} {statistics.median(medians):>10.1f} (median)")
        engine.dispose()


if __name__ == "__main__":
    main()
