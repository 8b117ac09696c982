"""Import a folder of notes as people write them, next to KaTeX's own time for its formulas.

    python bench/notes_bench.py                       # 1,000 notes, 5,000 formulas, SQLite
    python bench/notes_bench.py --notes 200 --formulas 1000

Writes a folder of notes in nested folders (question headings, numbered headings, plain-text
`Q:` lines, house-format notes, images beside some notes), imports it into a fresh SQLite
file with `import_content`, then renders each distinct formula of the folder once with
pykatex as app.content.compile.render does. The floor is KaTeX's time divided among the cores the
import renders with; the ratio says how far the whole import is from it. Then the same
folder again, unchanged (the no-op re-import).
"""

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# A 1×1 PNG: the import checks an image's type and size, not its looks.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)
_TOPICS = ("cache", "attention", "GEMM", "warp", "HBM", "softmax", "RoPE", "NCCL", "LoRA", "FP8")
_FOLDERS = ("gpu", "gpu/memory", "gpu/kernels", "llm", "llm/serving", "llm/training", "misc")


def _formula(rng: random.Random, n: int) -> str:
    a, b = rng.randint(2, 99), rng.randint(2, 99)
    shapes = (
        rf"\frac{{{a} x_{{{n}}}}}{{\sqrt{{{b} + y^{{2}}}}}}",
        rf"\sum_{{i=1}}^{{{a}}} w_i^{{{b}}} \cdot \mathrm{{softmax}}(q k_{{{n}}}^T)",
        rf"O\left(\frac{{N^{{{a % 4 + 2}}} d}}{{M_{{{n}}}}}\right) \le {b}",
        rf"\begin{{aligned}} t_{{{n}}} &= \frac{{{a}\,\text{{FLOP}}}}{{{b}}} \\ I &= {a}/{b}"
        r" \end{aligned}",
    )
    return shapes[n % len(shapes)]


def _note(rng: random.Random, index: int, formulas: list[str], image: str | None) -> str:
    """One note of four cards in one of the ways notes are written."""
    topic = _TOPICS[index % len(_TOPICS)]
    style = index % 4
    parts = [f"# {topic} notes {index}\n"]
    for k in range(4):
        tex = formulas[k] if k < len(formulas) else ""
        math = (
            f"\n$$\n{tex}\n$$\n" if tex and k % 2 == 0 else (f"Here ${tex}$ holds." if tex else "")
        )
        body = f"The point about {topic} in case {k} is bandwidth, not compute.\n{math}\n"
        if style == 0:
            parts.append(f"## What limits {topic} in case {index}.{k}?\n\n{body}")
        elif style == 1:
            parts.append(f"### {k + 1}. Explain {topic} variant {index}-{k}\n\n{body}")
        elif style == 2:
            parts.append(f"Q: Why does {topic} {index}-{k} matter?\n{body}")
        else:
            parts.append(f"### Q：{topic} 第 {index}-{k} 问是什么？\n\n**面试回答。** {body}")
    rest = formulas[4:]
    if rest:
        parts.append("\n".join(f"Also $${tex}$$" for tex in rest) + "\n")
    if image:
        parts.append(f"\n![diagram of {topic}]({image})\n")
    return "\n".join(parts)


def write_notes(root: Path, notes: int, formulas: int, seed: int = 0) -> set[tuple[str, bool]]:
    """Write the folder; return its distinct formulas as (TeX, display)."""
    rng = random.Random(seed)
    per_note = [formulas // notes + (i < formulas % notes) for i in range(notes)]
    distinct: set[tuple[str, bool]] = set()
    n = 0
    for index in range(notes):
        folder = root / _FOLDERS[index % len(_FOLDERS)] / f"part{index % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        texs = [_formula(rng, n + k) for k in range(per_note[index])]
        n += per_note[index]
        image = None
        if index % 10 == 0:
            (folder / "img").mkdir(exist_ok=True)
            (folder / "img" / f"fig{index}.png").write_bytes(PNG)
            image = f"img/fig{index}.png"
        for k, tex in enumerate(texs):
            distinct.add((tex, k >= 4 or k % 2 == 0))
        suffix = ".txt" if index % 4 == 2 else ".md"
        (folder / f"note-{index:04d}{suffix}").write_text(_note(rng, index, texs, image))
    return distinct


def katex_seconds(formulas: set[tuple[str, bool]]) -> float:
    """CPU seconds KaTeX takes for each formula once, called the way the renderer calls it."""
    from app.content.compile.render import Renderer

    renderer = Renderer()
    start = time.process_time()
    for tex, display in sorted(formulas):
        renderer.formula(tex, display)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=1_000)
    parser.add_argument("--formulas", type=int, default=5_000)
    args = parser.parse_args(argv)

    from sqlmodel import SQLModel

    from app.content.bank.sync import import_content
    from app.content.compile.build import worker_count
    from app.content.notes.source import scan
    from app.infra import models  # noqa: F401  (registers the tables)
    from app.infra.db import Database

    with tempfile.TemporaryDirectory(prefix="qbank-notes-bench-") as tmp:
        root = Path(tmp) / "notes"
        formulas = write_notes(root, args.notes, args.formulas)
        database = Database.open(f"sqlite:///{Path(tmp) / 'notes.db'}")
        SQLModel.metadata.create_all(database.engine)
        cores = worker_count(scan(root)[0])
        load = os.getloadavg()[0]
        start = time.perf_counter()
        full = import_content(root, database)
        full_s = time.perf_counter() - start
        start = time.perf_counter()
        noop = import_content(root, database)
        noop_s = time.perf_counter() - start
        database.dispose()
    katex = katex_seconds(formulas)
    floor = katex / cores
    print(
        f"folder: {args.notes:,} notes in nested folders, {len(formulas):,} distinct formulas; "
        f"{os.cpu_count()} CPUs, load average {load:.1f} before the import"
    )
    print(f"full import            {full_s:8.2f} s   {full.added:,} cards, {full.topics} pages")
    print(f"  formulas rendered    {full.formulas_rendered:8,}     warnings {len(full.warnings)}")
    print(f"KaTeX alone, once each {katex:8.2f} s   CPU, in one process")
    print(f"  over {cores} core(s)        {floor:8.2f} s   the floor")
    print(f"ratio import : floor   {full_s / floor:8.2f}×")
    print(f"no-op re-import        {noop_s:8.2f} s   {noop.unchanged:,} cards unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
