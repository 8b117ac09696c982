"""Recall of hand-labelled questions in folders of real notes: what `qbank check PATH --json` finds.

    python bench/notes_recall.py FOLDER LABELS.json [FOLDER LABELS.json ...]
    python bench/notes_recall.py --corpus /work/corpus   # DIR/<name>/ + DIR/labels/<name>.json
    python bench/notes_recall.py --corpus /work/corpus --only wdndev__llm_interview_note --misses
    python bench/notes_recall.py FOLDER LABELS.json --report saved.json   # score a saved report
    python bench/notes_recall.py --corpus /work/corpus --markdown   # + the table for the docs

The public part of the corpus is rebuilt by bench/corpus_fetch.py (repositories at pinned
commits, outside the repository). Its labels are written beside it, DIR/labels/<name>.json; `--keep`
copies them into bench/labels/ with every question and heading reduced to its line and a digest of
its normalised text (see `key` in bench/_recall_scores.py), so the labels outlive the machine
without a word of anyone's notes in the repository. `--corpus DIR` scores each folder against
DIR/labels/ when it has a file there, else against bench/labels/ (misses then show as lines).

LABELS.json is {"files": {"rel/path.md": {"questions": [{"line": N, "text": "…"}], "sections":
["heading text", …], "note": "…"}}}; a question may carry "answered": false (its notes give no
answer) and "prompt": true (a topic written as a heading, such as "2.2.1 监督学习", rather than
something that asks), and a file "inside_answer": [headings that belong to an answer].

A labelled question is found when a card of the same file starts within two lines of it, or has
the same question once numbering, markup, punctuation, whitespace and case are stripped; each card
answers for one question at most. Printed per folder and in total: recall over all labelled
questions, over those the notes answer and over those that ask; the share of cards that are a
labelled question (precision); section or answer sub-headings taken as cards, out of those
labelled; cards with an empty answer, with how many of those the notes leave unanswered in
brackets; warnings; where the run stands against issue 33's bar (answered recall >= 95% overall
and >= 90% in each folder, <= 2% of non-question headings as cards, no empty answer); and the
worst files. A failing command or a report that is not JSON is reported as such and scores
nothing; the run goes on.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._recall_scores import (  # noqa: E402 - the repository root is on the path first
    Figures,
    FolderScore,
    bar_verdict,
    kept,
    score_folder,
)


def run_check(folder: Path, *, subprocess_mode: bool) -> tuple[dict[str, Any] | None, str]:
    """Run `qbank check FOLDER --json`; the report, or None and why not."""
    args = ["check", str(folder), "--json"]
    if subprocess_mode:
        code = "import sys; from app.cli import main; sys.exit(main())"
        proc = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT
        )
        out, err, status = proc.stdout, proc.stderr, proc.returncode
    else:
        try:
            from click.testing import CliRunner

            from app.cli import main
        except Exception as exc:  # the app may be mid-rewrite; report it and score nothing
            return None, f"cannot import app.cli: {exc!r}"
        # Click 8.2 and later keep stderr apart from stdout (requirements.lock pins 8.5).
        result = CliRunner().invoke(main, args, catch_exceptions=True)
        out, err = result.stdout, result.stderr
        status = result.exit_code
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            err = f"{err}\n{type(result.exception).__name__}: {result.exception}"
    return parse_report(out, err, status)


def parse_report(out: str, err: str, status: int) -> tuple[dict[str, Any] | None, str]:
    """The JSON report in a command's output, or None and a one-line reason."""
    start = out.find("{")
    if start >= 0:
        try:
            report = json.loads(out[start:])
        except json.JSONDecodeError:
            report = None
        if isinstance(report, dict) and isinstance(report.get("files"), list):
            return report, "" if status == 0 else f"exit status {status}"
    tail = (err.strip() or out.strip()).splitlines()[-1:] or [""]
    return None, f"no JSON report (exit status {status}): {tail[0][:160]}"


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:5.1f}%" if den else "    -"


def print_scores(folders: list[FolderScore], *, worst: int, misses: bool) -> None:
    """Print one row per folder, the total, how they stand against the bar, and the worst files."""
    head = (
        f"{'folder':40} {'labelled':>8} {'found':>6} {'recall':>7} {'answered':>8} {'asking':>7} "
        f"{'cards':>6} {'precision':>9} {'headings':>13} {'empty':>9} {'warnings':>8}"
    )
    print(head)
    print("-" * len(head))
    totals = FolderScore(name="TOTAL")
    for folder in folders:
        totals.files.extend(folder.files)
        totals.unlabelled_cards += folder.unlabelled_cards
        _print_row(Figures.of(folder))
        if folder.error:
            print(f"    ! {folder.error}")
    print("-" * len(head))
    _print_row(Figures.of(totals))
    print("    headings: non-question headings (sections, answer sub-headings) taken as cards")
    if totals.unlabelled_cards:
        print(f"    cards in files without labels: {totals.unlabelled_cards}")
    print()
    for line in bar_verdict([Figures.of(f) for f in folders], Figures.of(totals)):
        print(line)
    swollen, labelled = totals.total("swollen"), totals.total("labelled_answers")
    if swollen:
        print(f"     cards whose question runs on past a rule or heading: {swollen}")
    if labelled:
        print(f"     answers that open with a label such as 'View Answer': {labelled}")
    ranked = sorted((f for f in totals.files if f.badness), key=lambda f: -f.badness)[:worst]
    if ranked:
        print(f"\nworst files (missed questions + cards that are no question), top {len(ranked)}:")
    names = {id(f): folder.name for folder in folders for f in folder.files}
    for f in ranked:
        print(
            f"  {names[id(f)]}/{f.path}: {f.found}/{f.labelled} found, "
            f"{f.cards - f.matched_cards} extra cards ({len(f.headings_as_cards)} headings)"
        )
        if misses:
            for text in f.missed[:8]:
                print(f"      missed: {text[:100]}")
            for text in (f.headings_as_cards + f.extra)[:8]:
                print(f"      extra:  {text[:100]}")


def _print_row(row: Figures) -> None:
    empty = f"{row.empty}({row.empty_expected})"
    share = _pct(row.headings_as_cards, row.non_questions)
    headings = f"{row.headings_as_cards}/{row.non_questions} {share}"
    print(
        f"{row.name[:40]:40} {row.labelled:8d} {row.found:6d} {_pct(row.found, row.labelled):>7} "
        f"{_pct(row.found_answered, row.answered):>8} {_pct(row.found_asking, row.asking):>7} "
        f"{row.cards:6d} {_pct(row.matched, row.cards):>9} "
        f"{headings:>13} {empty:>9} {row.warnings:8d}"
    )


def print_markdown(folders: list[FolderScore], kinds: dict[str, str]) -> None:
    """The per-folder table for docs/benchmarks.md."""
    print(
        "| folder | kind | notes | answered questions | recall (answered) | precision "
        "| non-question headings as cards | empty answers |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    totals = FolderScore(name="**total**")
    for folder in folders:
        totals.files.extend(folder.files)
    for folder, kind in [(f, kinds.get(f.name, "")) for f in folders] + [(totals, "")]:
        row = Figures.of(folder)
        print(
            f"| {row.name} | {kind} | {row.notes} | {row.answered} "
            f"| {_pct(row.found_answered, row.answered).strip()} "
            f"| {_pct(row.matched, row.cards).strip()} "
            f"| {row.headings_as_cards}/{row.non_questions} "
            f"| {row.empty} |"
        )


def _kinds() -> dict[str, str]:
    """Each corpus folder's kind, as bench/corpus_fetch.py lists it."""
    try:
        from bench.corpus_fetch import SOURCES
    except ImportError:
        return {}
    return {source.name: source.kind.split(":")[0] for source in SOURCES}


KEPT = Path(__file__).resolve().parent / "labels"


def _pairs(args: argparse.Namespace) -> list[tuple[str, Path, Path]]:
    pairs = []
    if len(args.paths) % 2:
        sys.exit("give FOLDER LABELS.json in pairs")
    for folder, labels in zip(args.paths[::2], args.paths[1::2], strict=True):
        pairs.append((Path(folder).name, Path(folder), Path(labels)))
    if args.corpus:
        corpus = Path(args.corpus)
        for folder in sorted(p for p in corpus.iterdir() if p.is_dir() and p.name != "labels"):
            # The labels beside the corpus when there are any, else the ones kept here.
            for labels in (corpus / "labels" / f"{folder.name}.json", KEPT / f"{folder.name}.json"):
                if labels.is_file():
                    pairs.append((folder.name, folder, labels))
                    break
    if args.only:
        pairs = [p for p in pairs if p[0] in args.only]
    if not pairs:
        sys.exit("nothing to score: give FOLDER LABELS.json or --corpus DIR")
    return pairs


def _one_entry_a_line(labels: dict[str, Any]) -> str:
    """Kept labels as JSON with one question or heading a line, so a change reads as a diff."""

    def dump(value: object) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))

    files = []
    for path, label in labels["files"].items():
        parts = [
            f"   {dump(part)}: [\n" + ",\n".join(f"    {dump(e)}" for e in entries) + "\n   ]"
            if entries
            else f"   {dump(part)}: []"
            for part, entries in label.items()
        ]
        files.append(f"  {dump(path)}: {{\n" + ",\n".join(parts) + "\n  }")
    return '{\n "files": {\n' + ",\n".join(files) + "\n }\n}\n"


def keep_labels(pairs: list[tuple[str, Path, Path]]) -> None:
    """Write each folder's labels to bench/labels/ as keys, lines and marks only."""
    KEPT.mkdir(exist_ok=True)
    for name, _, labels_path in pairs:
        labels = json.loads(labels_path.read_text(encoding="utf-8"))
        out = KEPT / f"{name}.json"
        out.write_text(_one_entry_a_line(kept(labels)), encoding="utf-8")
        print(f"kept {out.relative_to(ROOT)}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paths", nargs="*", help="FOLDER LABELS.json, repeated")
    parser.add_argument(
        "--corpus", help="a directory of folders with labels/<folder>.json beside them"
    )
    parser.add_argument("--only", nargs="+", help="score only these folder names")
    parser.add_argument("--subprocess", action="store_true", help="run qbank in a child process")
    parser.add_argument(
        "--report", help="score this saved report instead of running qbank (one folder)"
    )
    parser.add_argument(
        "--save", help="directory to write each folder's report to, as <folder>.json"
    )
    parser.add_argument("--worst", type=int, default=10, help="how many worst files to list")
    parser.add_argument(
        "--misses", action="store_true", help="list missed questions and extra cards"
    )
    parser.add_argument(
        "--markdown", action="store_true", help="also print the per-folder table as Markdown"
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="write the labels to bench/labels/ as keys and lines, none of the notes' words",
    )
    args = parser.parse_args()
    pairs = _pairs(args)
    if args.keep:
        keep_labels(pairs)
        return
    scores = []
    for name, folder, labels_path in pairs:
        labels = json.loads(labels_path.read_text(encoding="utf-8"))
        if args.report:
            text = Path(args.report).read_text(encoding="utf-8")
            report, error = parse_report(text, "", 0)
        else:
            report, error = run_check(folder, subprocess_mode=args.subprocess)
        if args.save and report is not None:
            Path(args.save).mkdir(parents=True, exist_ok=True)
            out = Path(args.save) / f"{name}.json"
            out.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
        scores.append(score_folder(name, labels, report, error))
    print_scores(scores, worst=args.worst, misses=args.misses)
    if args.markdown:
        print()
        print_markdown(scores, _kinds())


if __name__ == "__main__":
    main()
