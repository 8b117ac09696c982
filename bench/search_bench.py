"""Search benchmark: query time over a synthetic bank of 10,000 cards, on SQLite or PostgreSQL.

    python bench/search_bench.py                      # 10,000 cards, 20 decks, 200 topics, SQLite
    python bench/search_bench.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
    python bench/search_bench.py --cards 2000 --repeat 5

The bank comes from bench/_synthetic.py and is imported once (not timed); then each query runs
`app.search.query.search` --repeat times in one session, after one untimed warm-up run, and the
median
and worst are printed with the number of hits and of all matches. Each query is timed twice in
turn: answered from the trigram indexes (app/infra/searchdb.py), and with them bypassed (SQLite: no
FTS5 filter; PostgreSQL: bitmap scans off), which is how search ran before them; both must find
the same hits. The qbank tables of --database-url are dropped and recreated first: never point
it at data you want to keep.
"""

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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


@contextmanager
def _indexes(session: Any, *, on: bool) -> Iterator[None]:
    """SQLite: search as it is (`on`), or without the FTS5 filter."""
    if on or session.get_bind().dialect.name != "sqlite":
        yield
        return
    import app.search.query

    answered_by_index = app.search.query._fts_rows
    app.search.query._fts_rows = lambda terms: None
    try:
        yield
    finally:
        app.search.query._fts_rows = answered_by_index


def _without_bitmaps(url: str) -> Any:
    """PostgreSQL: an engine whose connections never scan an index into a bitmap.

    Connections of their own, because a connection keeps the plan it prepared for a statement
    (qbank plans generically) whatever is set afterwards.
    """
    from sqlalchemy import event

    from app.infra.db import make_engine

    engine = make_engine(url)

    @event.listens_for(engine, "connect")
    def _off(dbapi_connection: Any, _record: Any) -> None:
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SET enable_bitmapscan = off")
        dbapi_connection.commit()

    return engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--decks", type=int, default=20)
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    from sqlmodel import Session, SQLModel

    from app.content.bank.sync import import_content
    from app.infra.db import Database, make_engine
    from app.search.query import search
    from bench._synthetic import write_bank

    with tempfile.TemporaryDirectory(prefix="qbank-search-bench-") as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        engine = make_engine(url)
        SQLModel.metadata.drop_all(engine)
        with engine.begin() as connection:
            connection.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")
        database = Database(engine)
        database.upgrade()
        root = Path(tmp) / "content"
        write_bank(root, cards=args.cards, decks=args.decks, topics=args.topics, seed=0)
        started = time.perf_counter()
        import_content(root, database)
        imported = time.perf_counter() - started
        print(f"{engine.dialect.name}: {args.cards} cards, {args.topics} topics, ", end="")
        print(f"imported in {imported:.1f} s; {args.repeat} runs per query")
        print(f"{'query':<16} {'hits':>5} {'total':>6} {'indexed ms':>11} {'scan ms':>8}")
        medians: dict[bool, list[float]] = {True: [], False: []}
        bypass = engine if engine.dialect.name == "sqlite" else _without_bitmaps(url)
        with Session(engine) as indexed_session, Session(bypass) as scan_session:
            for query in QUERIES:
                found = {}
                for indexed in (True, False):
                    session = indexed_session if indexed else scan_session
                    with _indexes(session, on=indexed):
                        result = search(session, query)
                        times = []
                        for _ in range(args.repeat):
                            started = time.perf_counter()
                            result = search(session, query)
                            times.append((time.perf_counter() - started) * 1000)
                    medians[indexed].append(statistics.median(times))
                    found[indexed] = ([hit.id for hit in result.hits], result.total)
                assert found[True] == found[False], f"{query}: the indexes changed the hits"
                hits, total = found[True]
                print(
                    f"{query:<16} {len(hits):>5} {total:>6}"
                    f" {medians[True][-1]:>11.1f} {medians[False][-1]:>8.1f}"
                )
        all_indexed, all_scan = (statistics.median(medians[on]) for on in (True, False))
        print(f"{'all (median)':<16} {'':>5} {'':>6} {all_indexed:>11.1f} {all_scan:>8.1f}")
        bypass.dispose()
        engine.dispose()


if __name__ == "__main__":
    main()
