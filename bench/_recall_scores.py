"""Scoring a notes folder's `qbank check` report against its hand labels (bench/notes_recall.py)."""

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LINE_SLACK = 2
# Leading numbering and question markers:
# "1.", "1)", "1.1", "3.12.2", "1-1", "一、", "（1）", "Q1:", "问：", "QA：".
_PREFIX = re.compile(
    r"^\s*(?:#+\s*)?(?:[-*+]\s+)?"
    r"(?:\(?\d+(?:[.\-、]\d+)*[.)、:：]?\s*|[一二三四五六七八九十百]+[、.．]\s*|[（(]\d+[)）]\s*)?"
    r"(?:(?:Q\d*|QA|问题?\d*|Question)\s*[:：.]\s*)?",
    re.IGNORECASE,
)
# A card's question that runs on into a rule or a heading has swallowed text that follows it.
_SWOLLEN = re.compile(r"(?:^|\n|\s{2})(?:#{1,6}\s|[-*_]{3,}(?:\s{2}|\n|$))")
# Words that label a collapsed answer rather than say anything: kept, they open every answer.
_LABEL = re.compile(
    r"(?:Show|View|Reveal|Click to (?:see|show|expand))\s+(?:the\s+)?(?:Answer|Solution)|"
    r"点击展开|查看答案|显示答案",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"<[^>]+>|&#x20;|&nbsp;|&emsp;|[*_`~]")


def normalise(text: str) -> str:
    """Reduce a question to the characters that identify it."""
    plain = _MARKUP.sub("", text or "")
    plain = _PREFIX.sub("", plain, count=1)
    return re.sub(r"[\W_]+", "", plain).casefold()


def key(text: str) -> str:
    """What identifies a question, without its words: a digest of what `normalise` keeps, so
    labels can be kept where the notes they describe may not be ("" for a text with nothing
    left)."""
    plain = normalise(text)
    return hashlib.blake2b(plain.encode(), digest_size=8).hexdigest() if plain else ""


def _key_of(entry: str | dict[str, Any]) -> str:
    """A label's key: given as `{"key": …}` in kept labels, made from its text otherwise."""
    if isinstance(entry, dict):
        return str(entry.get("key") or key(str(entry.get("text", ""))))
    return key(entry)


def kept(labels: dict[str, Any]) -> dict[str, Any]:
    """Labels with every text replaced by its key: lines, keys and marks, none of the words."""
    files = {}
    for path, label in (labels.get("files") or {}).items():
        questions = [
            {"line": q["line"], "key": _key_of(q)}
            | {mark: q[mark] for mark in ("answered", "prompt") if mark in q}
            for q in label.get("questions") or []
        ]
        files[path] = {"questions": questions} | {
            part: [{"key": _key_of(t)} for t in label.get(part) or []]
            for part in ("sections", "inside_answer")
        }
    return {"files": files}


@dataclass
class FileScore:
    path: str
    labelled: int = 0
    answered: int = 0
    asking: int = 0
    found: int = 0
    found_answered: int = 0
    found_asking: int = 0
    cards: int = 0
    matched_cards: int = 0
    non_questions: int = 0
    headings_as_cards: list[str] = field(default_factory=list)
    empty_answers: int = 0
    empty_expected: int = 0
    swollen: list[str] = field(default_factory=list)
    labelled_answers: int = 0
    warnings: int = 0
    missed: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    @property
    def badness(self) -> int:
        return (self.labelled - self.found) + (self.cards - self.matched_cards)


@dataclass
class FolderScore:
    name: str
    files: list[FileScore] = field(default_factory=list)
    error: str = ""
    unlabelled_cards: int = 0

    def total(self, attr: str) -> int:
        return sum(
            len(v) if isinstance(v, list) else v for v in (getattr(f, attr) for f in self.files)
        )


def score_file(path: str, label: dict[str, Any], entry: dict[str, Any] | None) -> FileScore:
    """Match one file's labelled questions to its cards."""
    questions = label.get("questions") or []
    score = FileScore(path=path, labelled=len(questions))
    score.answered = sum(1 for q in questions if q.get("answered", True))
    score.asking = sum(1 for q in questions if not q.get("prompt"))
    cards = list((entry or {}).get("cards") or [])
    score.cards = len(cards)
    score.warnings = len((entry or {}).get("warnings") or [])
    unmatched = dict(enumerate(cards))
    found: set[int] = set()
    # Same text near the same line first, then the nearest line, then the same text anywhere,
    # so a card a line or two off, or one whose line is wrong, still counts once.
    keys = [_key_of(q) for q in questions]
    card_keys = {ci: key(str(card.get("question", ""))) for ci, card in unmatched.items()}
    pairs = []
    for qi, q in enumerate(questions):
        for ci, card in unmatched.items():
            line = card.get("line")
            if isinstance(line, int) and abs(line - int(q.get("line", -99))) <= LINE_SLACK:
                same = bool(keys[qi]) and keys[qi] == card_keys[ci]
                pairs.append((not same, abs(line - int(q["line"])), qi, ci))
    for _, _, qi, ci in sorted(pairs):
        if qi not in found and ci in unmatched:
            found.add(qi)
            del unmatched[ci]
    for qi in range(len(questions)):
        if qi in found or not keys[qi]:
            continue
        ci = next((c for c in unmatched if card_keys[c] == keys[qi]), None)
        if ci is not None:
            found.add(qi)
            del unmatched[ci]
    score.found = len(found)
    score.found_answered = sum(1 for qi in found if questions[qi].get("answered", True))
    score.found_asking = sum(1 for qi in found if not questions[qi].get("prompt"))
    score.matched_cards = score.cards - len(unmatched)
    score.missed = [
        questions[qi].get("text") or f"line {questions[qi].get('line')}"
        for qi in range(len(questions))
        if qi not in found
    ]
    headings = {
        _key_of(t) for t in (label.get("sections") or []) + (label.get("inside_answer") or [])
    }
    headings.discard("")
    score.non_questions = len(label.get("sections") or []) + len(label.get("inside_answer") or [])
    for card in unmatched.values():
        text = str(card.get("question", ""))
        (score.headings_as_cards if key(text) in headings else score.extra).append(text)
    score.swollen = [
        str(c.get("question", "")) for c in cards if _SWOLLEN.search(str(c.get("question", "")))
    ]
    score.labelled_answers = sum(1 for c in cards if _LABEL.search(str(c.get("answer", ""))[:300]))
    expected_empty = {qi for qi, q in enumerate(questions) if q.get("answered", True) is False}
    for card in cards:
        if not str(card.get("answer", "")).strip():
            score.empty_answers += 1
            line = card.get("line")
            if any(
                isinstance(line, int)
                and abs(line - int(questions[qi].get("line", -99))) <= LINE_SLACK
                for qi in expected_empty
            ):
                score.empty_expected += 1
    return score


def score_folder(
    name: str, labels: dict[str, Any], report: dict[str, Any] | None, error: str
) -> FolderScore:
    """Score every labelled file of a folder against its report."""
    entries = {}
    for entry in (report or {}).get("files") or []:
        if isinstance(entry, dict) and entry.get("path"):
            entries[Path(str(entry["path"])).as_posix().removeprefix("./")] = entry
    label_files = labels.get("files") or {}
    folder = FolderScore(name=name, error=error)
    for path, label in sorted(label_files.items()):
        folder.files.append(score_file(path, label, entries.get(path)))
    folder.unlabelled_cards = sum(
        len(e.get("cards") or []) for p, e in entries.items() if p not in label_files
    )
    return folder


# Issue 33's bar for folders of notes written by other people.
BAR_RECALL_TOTAL, BAR_RECALL_FOLDER, BAR_HEADINGS_AS_CARDS = 0.95, 0.90, 0.02


@dataclass(frozen=True)
class Figures:
    """One row: what a folder (or the total) scores."""

    name: str
    notes: int
    labelled: int
    found: int
    answered: int
    found_answered: int
    asking: int
    found_asking: int
    cards: int
    matched: int
    non_questions: int
    headings_as_cards: int
    empty: int
    empty_expected: int
    warnings: int

    @classmethod
    def of(cls, folder: FolderScore) -> "Figures":
        t = folder.total
        return cls(
            folder.name, len(folder.files), t("labelled"), t("found"), t("answered"),
            t("found_answered"), t("asking"), t("found_asking"), t("cards"), t("matched_cards"),
            t("non_questions"), t("headings_as_cards"), t("empty_answers"), t("empty_expected"),
            t("warnings"),
        )  # fmt: skip

    def ratio(self, num: int, den: int) -> float | None:
        return num / den if den else None


def bar_verdict(rows: list[Figures], total: Figures) -> list[str]:
    """Where the run stands against issue 33's bar, one line per criterion."""

    def mark(ok: bool) -> str:
        return "ok  " if ok else "MISS"

    recall = total.ratio(total.found_answered, total.answered) or 0.0
    weakest = min(
        (r for r in rows if r.answered), key=lambda r: r.found_answered / r.answered, default=None
    )
    weakest_recall = weakest.found_answered / weakest.answered if weakest else 1.0
    share = total.ratio(total.headings_as_cards, total.non_questions) or 0.0
    unexpected_empty = total.empty - total.empty_expected
    return [
        f"{mark(recall >= BAR_RECALL_TOTAL)} recall of answered questions overall "
        f"{100 * recall:.1f}% (bar {100 * BAR_RECALL_TOTAL:.0f}%)",
        f"{mark(weakest_recall >= BAR_RECALL_FOLDER)} weakest folder "
        f"{weakest.name if weakest else '-'} {100 * weakest_recall:.1f}% "
        f"(bar {100 * BAR_RECALL_FOLDER:.0f}% in each)",
        f"{mark(share <= BAR_HEADINGS_AS_CARDS)} non-question headings taken as cards "
        f"{total.headings_as_cards}/{total.non_questions} = {100 * share:.1f}% "
        f"(bar {100 * BAR_HEADINGS_AS_CARDS:.0f}%)",
        f"{mark(unexpected_empty == 0)} cards with an empty answer {total.empty} "
        f"({total.empty_expected} of them questions the notes leave unanswered; bar 0)",
    ]
