"""What a PostgreSQL test pays for its database before its first statement, old way and new.

    python bench/pg_test_setup.py            # 7 rounds each; QBANK_TEST_POSTGRES_URL or `test`
    python bench/pg_test_setup.py --rounds 15

Old: a schema of the test's own built from nothing (CREATE SCHEMA, create_all and the Alembic
stamp, for a bank test `import_content` of the web tests' bank) and dropped at the end. New:
the same empty schema filled from a template built once (`tests/support/pgschemas.py`), then taken
back. Both then open the database as the `database` fixture does (`Database.upgrade` on a
current schema). Prints the median and minimum of each, and the new way's parts.
"""

import argparse
import itertools
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from sqlalchemy import create_engine  # noqa: E402
from sqlalchemy.pool import NullPool  # noqa: E402

from app.content.bank.sync import import_content  # noqa: E402
from app.infra.db import Database  # noqa: E402
from tests.support.pgschemas import POSTGRES_URL, PostgresSchemas  # noqa: E402

DECK = """---
title: Bench
slug: bench
language: en
style: numbered
---

## 1. What is $E = mc^2$? {#one}

**Answer.** Mass and energy: $\\frac{E}{c^2} = m$.

## 2. Why fuse kernels? {#two}

**Answer.** Intermediates stay on the chip.
"""


def execute(sql: str) -> None:
    engine = create_engine(POSTGRES_URL, poolclass=NullPool)
    with engine.begin() as connection:
        connection.exec_driver_sql(sql)
    engine.dispose()


def opened(url: str) -> None:
    database = Database.open(url)
    database.upgrade()
    database.dispose()


def old(bank: Path | None) -> None:
    schema = f"t_{uuid.uuid4().hex[:16]}"
    execute(f"CREATE SCHEMA {schema}")
    url = f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    database = Database.open(url)
    database.upgrade()
    if bank:
        import_content(bank, database)
    database.dispose()
    opened(url)
    execute(f"DROP SCHEMA {schema} CASCADE")


def new(schemas: PostgresSchemas, bank: Path | None) -> list[float]:
    """The new way, timed in parts: new schema, fill, open, release."""
    marks = [time.perf_counter()]
    url = schemas.new()
    marks.append(time.perf_counter())
    if bank:
        schemas.fill("bank", url, lambda database: import_content(bank, database))
    else:
        schemas.fill("schema", url, lambda database: None)
    marks.append(time.perf_counter())
    opened(url)
    marks.append(time.perf_counter())
    schemas.release(url)
    marks.append(time.perf_counter())
    return [b - a for a, b in itertools.pairwise(marks)]


def timed(run: Callable[[], object], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    bank = Path(f"/tmp/qbank-bench-{uuid.uuid4().hex[:8]}")
    (bank / "decks").mkdir(parents=True)
    (bank / "decks" / "bench.md").write_text(DECK, encoding="utf-8")
    schemas = PostgresSchemas(POSTGRES_URL, "bench")
    try:
        new(schemas, bank), new(schemas, None)  # the templates and a spare, built once
        for label, with_bank in (("schema", None), ("schema + bank", bank)):
            old_times = timed(lambda b=with_bank: old(b), rounds)
            parts = [new(schemas, with_bank) for _ in range(rounds)]
            new_times = [sum(p) for p in parts]
            for way, times in (("old", old_times), ("new", new_times)):
                print(
                    f"{way} {label:14} median {statistics.median(times) * 1000:6.0f} ms"
                    f"  min {min(times) * 1000:6.0f} ms"
                )
            names = ("new schema", "fill", "open (create_schema)", "release")
            print(
                "    new parts: "
                + ", ".join(
                    f"{name} {statistics.median(p[i] for p in parts) * 1000:.0f} ms"
                    for i, name in enumerate(names)
                )
            )
    finally:
        schemas.close()


if __name__ == "__main__":
    main()
