"""Find the questions and answers in a note as its author wrote them.

Each recogniser claims the parts of a note's outline it understands: question headings (at any
level, by `?`, `Q:` or numbering), then, in the text no heading card holds, `Q:` lines, numbered
lines, bold questions, `question::answer`, a `?` line between question and answer, `<details>`,
question callouts and list items that ask; or a whole note answers the question its file
name asks, under a title that names its subject or, when nothing else in a note without
headings is a card, with no heading at all. A note's front matter `style:` chooses the house
format's fixed rules instead (`question`: `Q:` headings at levels 2–4; `numbered`: numbered
headings at levels 2–3).
"""

from app.content.notes.headings import (
    recognise_headings,
)
from app.content.notes.named import file_name_question, untitled_question
from app.content.notes.outline import Heading, Outline
from app.content.notes.wording import (
    HOUSE_NUMBER,
    Q_PREFIX,
    Found,
    NotTaken,
    Reason,
    Recognised,
    Syntax,
)


def recognise(
    outline: Outline,
    *,
    style: str | None,
    house: bool = False,
    name: str = "",
    named: bool = False,
    clozes: bool = False,
) -> Recognised:
    """Find the cards of a note; `style` is the front matter's, None to decide from structure.

    `house`: the note is a deck of the house layout, where numbered headings in one flat run
    are questions however they are worded. `name`: the note's file name, which may be the one
    question the note answers (app.content.notes.named); `named`: the note is in a folder of
    notes named as questions, so its name is its question even where it does not ask.
    `clozes`: the note holds cloze deletions, its cards, which a note without headings keeps
    rather than be one card.
    """
    if style in ("question", "numbered"):
        return _house(outline, style)
    whole = file_name_question(outline, name, named=named)
    if whole is not None:
        return whole
    found = recognise_headings(outline, house)
    if clozes:
        return found
    return untitled_question(outline, name, found, named=named) or found


# --- the house format ---------------------------------------------------------------------


def _house(outline: Outline, style: str) -> Recognised:
    found = Recognised()
    lines = outline.lines
    marks: dict[int, tuple[Heading, str | None]] = {}
    for heading in outline.headings:
        card = _house_question(style, heading)
        marks[heading.line] = (heading, card)
    section = ""
    current: Found | None = None
    skip_until = -1
    for index, text in enumerate(lines):
        if index < skip_until:
            continue
        if index in marks:
            heading, question = marks[index]
            skip_until = heading.end
            if question is not None:
                current = Found(question, index, heading.explicit_id, [], section, Syntax.HOUSE)
                found.cards.append(current)
                continue
            if heading.level <= 2:
                section = heading.text
                current = None
                found.not_taken.append(NotTaken(index, heading.text, Reason.SECTION))
                continue
            reason = Reason.INSIDE_ANSWER if current else Reason.NOT_A_QUESTION
            found.not_taken.append(NotTaken(index, heading.text, reason))
            held = [(i, lines[i]) for i in range(index, heading.end)]
            if current is not None:
                current.body += held
            elif not section:
                found.intro += held
            continue
        if current is None:
            if not section:
                found.intro.append((index, text))
            continue
        current.body.append((index, text))
    return found


def _house_question(style: str, heading: Heading) -> str | None:
    if style == "question" and 2 <= heading.level <= 4:
        match = Q_PREFIX.match(heading.text)
        return match.group(1).strip() if match else None
    if style == "numbered" and heading.level in (2, 3):
        match = HOUSE_NUMBER.match(heading.text)
        return match.group(2).strip() if match else None
    return None
