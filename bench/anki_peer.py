"""Anki's own backend doing a study cycle, the peer that bench/study_cpu.py measures qbank against.

    python bench/anki_peer.py BANK.apkg            # 7 rounds of 500 cycles on its own

The `anki` package from PyPI (`pip install -e '.[bench]'`) is the desktop app's backend: its
Rust core and SQLite, driven through the same Python calls as Anki's reviewer. A collection is
made from an .apkg (bench/study_cpu.py exports the qbank bank with app.export.anki, so both
sides hold the same 10,000 cards and their HTML), FSRS is turned on, the daily limits lifted,
and some cards made review cards due today so that the queue mixes learning, review and new
cards as a learner's does. One cycle is what the reviewer does per card:

    queued = col.sched.get_queued_cards()            # the next card, its states, the counts
    card = Card(col, backend_card=queued.cards[0].card)
    card.question(); card.answer()                   # render both sides
    col.sched.describe_next_states(states)           # the four buttons' intervals
    col.sched.answer_card(col.sched.build_answer(card=card, states=states, rating=...))

`run_peer` runs it in a process of its own that answers "round" requests over a pipe, so that
bench/study_cpu.py can interleave its rounds with qbank's and neither side's threads are
counted in the other's CPU time.
"""

import argparse
import random
import resource
import sys
import tempfile
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

RATINGS = (1, 2, 3, 4)
RATING_WEIGHTS = (0.10, 0.15, 0.60, 0.15)  # Again, Hard, Good, Easy, as for qbank


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # every thread of the process
    return usage.ru_utime + usage.ru_stime


class AnkiPeer:
    """A collection built from an .apkg, studied one card at a time as Anki's reviewer does."""

    def __init__(self, folder: Path, package: Path, review_due: int, seed: int) -> None:
        from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest
        from anki.scheduler.v3 import CardAnswer as A

        self.col = Collection(str(folder / "collection.anki2"))
        options = ImportAnkiPackageOptions(
            merge_notetypes=True, update_notes=1, with_scheduling=False
        )
        self.col.import_anki_package(
            ImportAnkiPackageRequest(package_path=str(package), options=options)
        )
        self.col.set_config("fsrs", True)
        for deck in self.col.decks.all_names_and_ids():
            config = self.col.decks.config_dict_for_deck_id(deck.id)
            config["new"]["perDay"] = 9999
            config["rev"]["perDay"] = 9999
            self.col.decks.update_config(config)
        parent = self.col.decks.id_for_name("qbank")
        if parent is None:
            raise SystemExit(f"{package}: no 'qbank' deck; was it exported by qbank?")
        self.col.decks.select(parent)
        self.rng = random.Random(seed)
        # qbank's ratings 1-4 as Anki's answer buttons.
        self.buttons = dict(zip(RATINGS, (A.AGAIN, A.HARD, A.GOOD, A.EASY), strict=True))
        cards = list(self.col.find_cards(""))
        self.cards = len(cards)
        if review_due:
            # Review cards due today, scattered as a learner's reviews would be.
            self.col.sched.set_due_date(self.rng.sample(cards, min(review_due, len(cards))), "0")

    def cycle(self) -> None:
        from anki.cards import Card

        queued = self.col.sched.get_queued_cards(fetch_limit=1)
        if not queued.cards:
            raise SystemExit("Anki: nothing left to study; give it a larger bank")
        top = queued.cards[0]
        card = Card(self.col, backend_card=top.card)
        card.start_timer()
        card.question()
        card.answer()
        self.col.sched.describe_next_states(top.states)
        rating = self.buttons[self.rng.choices(RATINGS, RATING_WEIGHTS)[0]]
        answer = self.col.sched.build_answer(card=card, states=top.states, rating=rating)
        self.col.sched.answer_card(answer)

    def round(self, cycles: int) -> float:
        """CPU seconds per cycle over `cycles` cycles."""
        started = _cpu()
        for _ in range(cycles):
            self.cycle()
        return (_cpu() - started) / cycles

    def close(self) -> None:
        self.col.close()


def run_peer(conn: Connection, package: str, review_due: int, seed: int) -> None:
    """Child process: build the collection, then answer ("round", n) with CPU per cycle."""
    with tempfile.TemporaryDirectory(prefix="qbank-anki-peer-") as name:
        peer = AnkiPeer(Path(name), Path(package), review_due, seed)
        conn.send(("ready", peer.cards))
        while True:
            request: tuple[Any, ...] = conn.recv()
            if request[0] != "round":
                break
            conn.send(("round", peer.round(request[1])))
        peer.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("package", type=Path, help="an .apkg exported by qbank")
    parser.add_argument("--cycles", type=int, default=3500)
    parser.add_argument("--review-due", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="qbank-anki-peer-") as name:
        peer = AnkiPeer(Path(name), args.package, args.review_due, args.seed)
        for _ in range(100):
            peer.cycle()
        rounds = sorted(peer.round(args.cycles // 7) for _ in range(7))
        peer.close()
    print(
        f"Anki {peer.cards:,} cards: CPU per cycle min {rounds[0] * 1000:.3f} ms, "
        f"median {rounds[3] * 1000:.3f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
