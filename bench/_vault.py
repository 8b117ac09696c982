"""A deterministic notes vault for the scale benchmarks: many small notes in many folders.

    from bench._vault import write_vault
    write_vault(Path(tmp), notes=20_000, folders=200)

writes `folder-NNN/note-NNNNN.md`, each note one question (a `##` heading ending in `?`) with a
short answer of mixed Chinese and English prose and two wikilinks to other notes, no formulas:
the shape of an Obsidian vault or a notes repository that grew over years. With `depth` > 1
the folders nest that many levels (`f0/f1/…`), each level a folder of its own. The same
arguments always produce the same bytes.
"""

import random
from pathlib import Path

_WORDS = (
    "cache",
    "latency",
    "throughput",
    "index",
    "transaction",
    "replica",
    "quorum",
    "shard",
    "lock",
    "queue",
    "backpressure",
    "idempotency",
    "consistency",
    "partition",
    "leader",
)
_PROSE = (
    "先说结论：{a} 决定上限，{b} 决定能不能接近上限。",
    "In practice {a} only pays off once {b} is already the bottleneck.",
    "很多人把 {a} 和 {b} 混为一谈，其实一个是设计选择，一个是实现约束。",
    "A common follow-up asks how {a} interacts with {b} under load.",
)


def note_path(index: int, folders: int, depth: int = 1) -> str:
    """Where note `index` lives: `folder-NNN/` (nested `depth` levels) then `note-NNNNN.md`."""
    folder = index % folders
    parts = [f"folder-{folder:03d}"] + [f"level-{level:02d}" for level in range(1, depth)]
    return "/".join(parts) + f"/note-{index:05d}.md"


def note_text(index: int, notes: int, rng: random.Random) -> str:
    a, b = rng.sample(_WORDS, 2)
    links = " ".join(f"[[note-{rng.randrange(notes):05d}]]" for _ in range(2))
    prose = " ".join(rng.choice(_PROSE).format(a=a, b=b) for _ in range(3))
    return (
        f"# Note {index:05d}\n\n"
        f"## How does {a} relate to {b} (note {index})?\n\n"
        f"{prose}\n\nSee also {links}.\n"
    )


def write_vault(root: Path, *, notes: int, folders: int, depth: int = 1, seed: int = 0) -> None:
    rng = random.Random(seed)
    for index in range(notes):
        path = root / note_path(index, folders, depth)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note_text(index, notes, rng), encoding="utf-8")
