"""Statements, pool check-outs and thread hops per study request, counted in-process.

    python bench/request_cost.py                     # SQLite, the bundled bank, 20 cards
    python bench/request_cost.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/x

Imports the bundled content into a fresh database, creates the app in local mode and studies
through its HTTP API in-process (Starlette's TestClient): for each card GET /api/study/next,
then POST /api/reviews (rating Good, with version and Idempotency-Key, the next card in the
answer); every fifth card POST /api/reviews/undo and rates it again; GET /study after each
tenth. Statements are counted with SQLAlchemy's `before_cursor_execute` event, check-outs with
the pool's `checkout` event, thread hops as calls of `anyio.to_thread.run_sync` (through which
FastAPI and Starlette run sync code in the thread pool). Prints the median per request kind.
"""

import argparse
import statistics
import sys
import tempfile
import uuid
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio.to_thread

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # after PYTHONPATH, so that another checkout can be measured


class Counter:
    def __init__(self) -> None:
        self.statements = self.checkouts = self.hops = 0

    def reset(self) -> tuple[int, int, int]:
        found = (self.statements, self.checkouts, self.hops)
        self.statements = self.checkouts = self.hops = 0
        return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--cards", type=int, default=20)
    args = parser.parse_args()

    from fastapi.testclient import TestClient
    from sqlalchemy import event

    from app.config import Settings
    from app.content.bank.sync import import_content
    from app.main import create_app

    folder = Path(tempfile.mkdtemp(prefix="qbank-cost-"))
    url = args.database_url or f"sqlite:///{folder / 'qbank.db'}"
    schema = None
    if args.database_url:
        from bench._setup import postgres_schema

        schema, url = postgres_schema(args.database_url)
    settings = Settings(_env_file=None, database_url=url, content_dir=ROOT / "content")
    app = create_app(settings)
    app.state.database.upgrade()
    engine = app.state.database.engine
    import_content(ROOT / "content", app.state.database)

    count = Counter()

    def statement(*_: Any) -> None:
        count.statements += 1

    def checkout(*_: Any) -> None:
        count.checkouts += 1

    event.listen(engine, "before_cursor_execute", statement)
    event.listen(engine.pool, "checkout", checkout)
    run_sync: Callable[..., Any] = anyio.to_thread.run_sync

    async def counted(*a: Any, **k: Any) -> Any:
        count.hops += 1
        return await run_sync(*a, **k)

    anyio.to_thread.run_sync = counted  # type: ignore[assignment]

    results: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        lifted = client.post("/api/study/new-today", json={"count": 500})
        assert lifted.status_code == 200, lifted.text
        client.get("/api/study/next")  # the local learner is made on the first request
        count.reset()
        for n in range(args.cards):
            shown = client.get("/api/study/next")
            results["GET /api/study/next"].append(count.reset())
            assert shown.status_code == 200, shown.text
            card = shown.json()
            body = {"card_id": card["id"], "rating": 3, "version": card["version"]}
            headers = {"Idempotency-Key": uuid.uuid4().hex}
            rated = client.post("/api/reviews", json=body, headers=headers)
            results["POST /api/reviews"].append(count.reset())
            assert rated.status_code == 200, rated.text
            if n % 5 == 4:
                undone = client.post("/api/reviews/undo", json={"card_id": card["id"]})
                results["POST /api/reviews/undo"].append(count.reset())
                assert undone.status_code == 200, undone.text
                body["version"] = undone.json()["version"]
                again = client.post("/api/reviews", json=body)
                assert again.status_code == 200, again.text
                count.reset()
            if n % 10 == 9:
                page = client.get("/study")
                results["GET /study"].append(count.reset())
                assert page.status_code == 200
    app.state.database.dispose()
    if schema is not None:
        from bench._setup import drop_schema

        drop_schema(args.database_url, schema)

    print(f"{engine.dialect.name}, {args.cards} cards; median per request")
    print(f"{'request':<26} {'statements':>10} {'check-outs':>10} {'thread hops':>11}")
    for kind, rows in results.items():
        medians = [statistics.median(column) for column in zip(*rows, strict=True)]
        print(f"{kind:<26} {medians[0]:>10g} {medians[1]:>10g} {medians[2]:>11g}")


if __name__ == "__main__":
    main()
