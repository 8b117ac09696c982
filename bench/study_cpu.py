"""CPU per study cycle in-process: a fresh learner next to one with a long history, and Anki.

    python bench/study_cpu.py                       # 700 cycles per side, 8 + 8 learners, SQLite
    python bench/study_cpu.py --learners 16 --cycles 1400 --keep DIR   # steadier, 175 cards each
    python bench/study_cpu.py --profile out.prof    # and a cProfile of qbank's side
    python bench/study_cpu.py --keep /tmp/qbank-cpu  # set up once, measure again without it

Needs the `bench` extra (`pip install -e '.[bench]'`) for the `anki` package.

qbank: builds the serving benchmark's bank (bench/serve_bench.py: 10,000 cards) in a temporary
SQLite file with two groups of learners, daily limits lifted: fresh ones, whose only past is
today's first few cards (40 minutes ago), and long-standing ones with `--history-days` of
study and `--today` ratings already given today. It creates the app with `create_app`, runs
its lifespan, and calls it as an ASGI application the way the study page does: one GET
/api/study/next per learner for the first card, then one POST /api/reviews per card (rating,
version, an Idempotency-Key), whose answer holds the next card with its HTML, intervals and
counts. The learners of a group take turns.

A card's cost must not grow with the learner's history or the day's work: the two groups'
figures should be within 10% of each other.

Anki: the same bank exported with app.export.anki and imported into a collection of the
`anki` package (its Rust backend and SQLite), FSRS on, limits lifted, as many review cards due
as a long-standing qbank learner has on average; one cycle fetches the next queued card with
its scheduling states, renders question and answer, labels the four buttons and answers it
(bench/anki_peer.py). Anki runs in a process of its own.

The sides take turns, a round of each at a time, so that a change in the machine's load hits
all of them. Each prints its process's CPU time per cycle (background threads included) as
the minimum and median of the rounds (7 unless --rounds); the ratios of the medians are
figures to watch, those of the histories with a bound. The access log is not written.
"""

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import secrets
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # after PYTHONPATH, so that another checkout can be measured

WARMUP = 100
RATINGS = (1, 2, 3, 4)
RATING_WEIGHTS = (0.10, 0.15, 0.60, 0.15)  # Again, Hard, Good, Easy


async def _call(
    app: Any,
    method: str,
    path: str,
    token: str,
    body: bytes | None = None,
    key: str | None = None,
) -> tuple[int, Any]:
    headers = [(b"host", b"127.0.0.1"), (b"authorization", f"Bearer {token}".encode())]
    if body is not None:
        headers.append((b"content-type", b"application/json"))
    if key is not None:
        headers.append((b"idempotency-key", key.encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8000),
    }
    messages = [{"type": "http.request", "body": body or b"", "more_body": False}]

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop()
        await asyncio.Event().wait()  # no disconnect: the app never waits for one here
        raise AssertionError

    status: list[int] = []
    chunks: list[bytes] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    if status[0] == 204:
        return 204, None
    if status[0] != 200:
        raise SystemExit(f"{method} {path} answered {status[0]}: {b''.join(chunks)[:200]!r}")
    return 200, json.loads(b"".join(chunks))


class _Learners:
    """The learners taking turns, each holding the card the server sent them last."""

    def __init__(self, app: Any, tokens: list[str]) -> None:
        self.app, self.tokens = app, tokens
        self.held: dict[str, dict[str, Any] | None] = {}
        self.rng = random.Random(1)
        self.turn = 0

    async def cycle(self) -> None:
        token = self.tokens[self.turn % len(self.tokens)]
        self.turn += 1
        card = self.held.get(token)
        if card is None:  # the first card of a session
            _, card = await _call(self.app, "GET", "/api/study/next", token)
            if card is None:
                raise SystemExit("qbank: nothing left to study; give it a larger bank")
        body = {
            "card_id": card["id"],
            "rating": self.rng.choices(RATINGS, RATING_WEIGHTS)[0],
            "version": card["version"],
        }
        _, answer = await _call(
            self.app, "POST", "/api/reviews", token, json.dumps(body).encode(), uuid.uuid4().hex
        )
        self.held[token] = answer["next"]

    def forget_card_views(self) -> None:
        """Empty the process's cache of card views, as a server started a moment ago has it."""
        from app.study.cardview import CardViews

        views = self.app.state.database.kept(CardViews)
        with views.lock:
            views.views.clear()

    async def round(self, cycles: int, *, cold: bool = False) -> float:
        started = time.process_time()
        for _ in range(cycles):
            if cold:
                self.forget_card_views()
            await self.cycle()
        return (time.process_time() - started) / cycles


def _export(url: str, path: Path) -> None:
    from sqlmodel import Session

    from app.export.anki import export_apkg
    from app.infra.db import make_engine

    engine = make_engine(url)
    with Session(engine) as session:
        export_apkg(session=session, deck_slug=None, path=path)
    engine.dispose()


def _start_anki(package: Path, review_due: int, seed: int) -> tuple[Any, Any]:
    from bench.anki_peer import run_peer

    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    process = context.Process(target=run_peer, args=(theirs, str(package), review_due, seed))
    process.start()
    return process, ours


def _anki_round(conn: Any, cycles: int) -> float:
    conn.send(("round", cycles))
    kind, value = conn.recv()
    assert kind == "round"
    return value


async def _measure(
    app: Any,
    groups: list[list[str]],
    anki: Any,
    rounds: int,
    per_round: int,
    profile: Path | None,
) -> tuple[list[list[float]], list[float]]:
    """Rounds of each group of learners and of Anki in turn: each side's sorted CPU per cycle.

    Each group plays two sides: with the card views the process has cached, and with none
    (every card's view read from the database, as for cards not studied since the server
    started). The fresh learners all study the same first new cards, so with the cache most
    of their views are there already, while each long-standing learner's reviews are cards of
    their own: the cold sides compare the two histories without that difference.
    """
    sides = [_Learners(app, tokens) for tokens in groups]
    for learners in sides:  # caches, compiled statements, the pool
        for _ in range(WARMUP // len(sides)):
            await learners.cycle()
    _anki_round(anki, WARMUP)
    profiler = _profile_main() if profile else None
    ours: list[list[float]] = [[] for _ in range(2 * len(sides))]
    theirs = []
    plays = [(learners, cold) for cold in (False, True) for learners in sides]
    for _ in range(rounds):
        for (learners, cold), found in zip(plays, ours, strict=True):
            if profiler:
                profiler.enable()
            found.append(await learners.round(per_round, cold=cold))
            if profiler:
                profiler.disable()
        theirs.append(_anki_round(anki, per_round))
    if profiler and profile:
        _dump_profiles(profiler, profile)
    return [sorted(found) for found in ours], sorted(theirs)


# The routes run in the thread pool: each thread gets a profiler of its own, timed by the
# thread's CPU clock so that waits for a thread or the GIL are not counted as work.
_thread_profiles: list[Any] = []


def _profile_threads() -> None:
    import cProfile
    import threading

    def start(*_: Any) -> None:
        sys.setprofile(None)
        profiler = cProfile.Profile(time.thread_time)
        _thread_profiles.append(profiler)
        profiler.enable()

    threading.setprofile(start)  # threads started from now on: the pool's, the WAL thread


def _profile_main() -> Any:
    import cProfile

    return cProfile.Profile(time.thread_time)


def _dump_profiles(main: Any, path: Path) -> None:
    import pstats

    stats = pstats.Stats(main)
    for profiler in _thread_profiles:
        profiler.create_stats()
        stats.add(profiler)
    stats.dump_stats(path)


def _bank(tmp: Path, args: argparse.Namespace) -> tuple[Path, str, Path, list[list[str]], int]:
    """The bank, its two groups of learners and its Anki package in `tmp`: made, or --keep's."""
    content, url, package = tmp / "content", f"sqlite:///{tmp / 'bench.db'}", tmp / "bank.apkg"
    made = tmp / "learners.json"
    if made.exists():
        kept = json.loads(made.read_text())
        return content, url, package, kept["groups"], kept["review_due"]

    from bench._setup import add_learners, prepare
    from bench._synthetic import write_bank

    write_bank(content, cards=args.cards, seed=args.seed)
    _, fresh, _ = prepare(url, content, args.learners, 0, args.seed, [])
    long, queues = add_learners(
        url, args.learners, args.history_days, args.seed + 1, today=args.today, prefix="long"
    )
    review_due = round(sum(q["review"] for q in queues) / len(queues))
    _export(url, package)
    made.write_text(json.dumps({"groups": [fresh, long], "review_due": review_due}))
    return content, url, package, [fresh, long], review_due


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cycles", type=int, default=700, help="measured cycles of each side")
    parser.add_argument("--learners", type=int, default=8, help="qbank learners in each group")
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument(
        "--history-days", type=int, default=120, help="the long-standing learners' past"
    )
    parser.add_argument(
        "--today", type=int, default=200, help="ratings the long-standing ones gave today"
    )
    parser.add_argument(
        "--rounds", type=int, default=7, help="rounds of each side, taking turns (odd)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--profile", type=Path, help="write a cProfile of qbank's side (every thread, CPU time)"
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep the bank, its learners and the Anki package in DIR, and use those of an "
        "earlier run there instead of a new set-up (the learners' history then includes that "
        "run's ratings)",
    )
    args = parser.parse_args(argv)

    import logging

    with contextlib.ExitStack() as stack:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            tmp = args.keep
        else:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="qbank-study-cpu-")))
        content, url, package, groups, review_due = _bank(tmp, args)
        process, anki = _start_anki(package, review_due, args.seed)
        os.environ |= {
            "QBANK_DATABASE_URL": url,
            "QBANK_CONTENT_DIR": str(content),
            "QBANK_MODE": "team",
            "QBANK_SECRET_KEY": secrets.token_urlsafe(36),
        }
        from app.config import get_settings
        from app.main import create_app

        logging.getLogger("qbank.access").setLevel(logging.WARNING)
        if args.profile:
            _profile_threads()
        app = create_app(get_settings())
        kind, anki_cards = anki.recv()
        assert kind == "ready"

        async def run() -> tuple[list[list[float]], list[float]]:
            async with app.router.lifespan_context(app):
                per_round = max(args.cycles // args.rounds, 1)
                return await _measure(app, groups, anki, args.rounds, per_round, args.profile)

        try:
            (fresh, long, fresh_cold, long_cold), theirs = asyncio.run(run())
        finally:
            anki.send(("stop",))
            process.join(timeout=30)

    _report(args, (fresh, long), (fresh_cold, long_cold), theirs, anki_cards, review_due)
    return 0


def _report(
    args: argparse.Namespace,
    cached: tuple[list[float], list[float]],
    cold: tuple[list[float], list[float]],
    theirs: list[float],
    anki_cards: int,
    review_due: int,
) -> None:
    def figure(times: list[float]) -> str:
        return f"{times[0] * 1000:6.3f} / {median(times) * 1000:6.3f} ms"

    def median(times: list[float]) -> float:
        return times[len(times) // 2]

    per_learner = 2 * args.cycles // args.learners
    print(
        f"{args.cycles} cycles per side, interleaved in {args.rounds} rounds ({per_learner} cards"
        " per learner); CPU per cycle, min / median:"
    )
    fresh = f"{args.learners} learners, no past before today's first cards"
    long = (
        f"{args.learners} learners, {args.history_days} days of history, "
        f"{args.today} cards done today"
    )
    for label, (new, old) in (("card views cached", cached), ("no card view cached", cold)):
        print(f"  qbank, fresh learners, {label:<20} {figure(new)}  ({fresh})")
        print(f"  qbank, long-standing,  {label:<20} {figure(old)}  ({long})")
    print(
        f"  Anki                                        {figure(theirs)}  (one collection, "
        f"{anki_cards:,} cards, FSRS, {review_due} reviews due at the start)"
    )
    print(
        f"  (qbank: {args.cards:,} cards, SQLite, one POST /api/reviews per card through the "
        "ASGI app)"
    )
    if args.profile:
        print(f"  (qbank profiled into {args.profile}: its figures include the profiler's cost)")
    for label, (new, old) in (("card views cached", cached), ("no card view cached", cold)):
        growth = median(old) / median(new)
        verdict = "within" if growth <= 1.10 else "NOT within"
        print(f"long-standing : fresh (medians, {label}): {growth:.2f}x, {verdict} 10%")
    new, old = cached
    print(
        f"qbank : Anki (medians, card views cached): fresh {median(new) / median(theirs):.2f}x, "
        f"long-standing {median(old) / median(theirs):.2f}x (a figure to watch)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
