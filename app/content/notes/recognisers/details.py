"""`<details><summary>question</summary>answer</details>`, and a question above a fold."""

from typing import ClassVar

from app.content.notes.recognisers.base import TAKEN, Region, Unit, UnitKind, _Taken
from app.content.notes.recognisers.lines import details, details_end, last_paragraph, strip_marker
from app.content.notes.wording import (
    COMMENT,
    DETAILS_OPEN,
    FOLD,
    Found,
    Lines,
    Syntax,
    asks,
    is_fold_label,
    question_text,
)


class Details:
    name: ClassVar[Syntax] = Syntax.DETAILS
    units: ClassVar[frozenset[UnitKind]] = frozenset({"block"})

    def claim(self, unit: Unit, region: Region) -> Found | _Taken | None:
        if unit.block.kind != "html_block":
            return None
        # `<!-- <details><summary>…</summary> -->`: a fold the writer took out of the page.
        if not DETAILS_OPEN.search(COMMENT.sub("", region.read(unit.start))):
            return None
        stop = details_end(region.outline, unit.start, region.end)
        region.skip_until = stop
        summary, answer = details(region.outline, unit.start, stop)
        listing = _listing(summary)
        if summary and not is_fold_label(summary) and not FOLD.match(summary) and not listing:
            card = region.add(region.card(summary, unit.start, self.name))
            card.body += answer
            return card
        if listing and region.current is None:
            return TAKEN
        if region.current is not None:  # a fold labelled "Answer": shown on the card anyway
            _answers(region.current, summary, answer)
            return TAKEN
        return self._asked_above(region, answer)

    def _asked_above(self, region: Region, answer: Lines) -> Found | _Taken:
        """The card of the question above a fold labelled as its answer, if one stands there."""
        code = region.outline.code
        # The question may stand above a code block it asks about (the block then its stem).
        asking = [(i, t) for i, t in region.out.intro if i not in code]
        last = last_paragraph(asking) if asking else None
        if last is None:
            return TAKEN
        # "1. What is X?" then <details><summary>Answer</summary>…
        index, asked = last
        stem = [(i, t) for i, t in region.out.intro if i > index]
        region.out.intro = [(i, t) for i, t in region.out.intro if i < index]
        text, _ = question_text(strip_marker(asked))
        card = region.card(text, index, self.name)
        card.stem, card.body = stem, answer
        region.out.cards.append(card)
        return card


def _answers(current: Found, summary: str | None, answer: Lines) -> None:
    """A fold labelled as an answer ("Show Answer") under the card being read: its answer."""
    if current.stem is None:
        # What came between the question and the fold labelled as its answer ("Show Answer")
        # is what it asks about (the code of "What does this print?"): the front's. Where the
        # first fold shows something else ("See Class"), the text before it is the answer.
        labelled = is_fold_label(summary or "")
        current.stem, current.body = (current.body, []) if labelled else ([], current.body)
    current.body += answer


def _listing(summary: str | None) -> bool:
    """Whether a summary only names what its fold lists ("Translations:", "Examples:"): a few
    words before a colon that ask nothing. A task ending in a colon ("Write a playbook that
    deploys … with this content:") is a question."""
    if not summary or not summary.rstrip().endswith((":", "：")):
        return False
    return len(summary) <= 32 and len(summary.split()) <= 4 and not asks(summary)
