"""A note whose file name asks the question the whole note answers.

`What do you know about ArrayMap.md`, opening with `# ArrayMap`, then `## How ArrayMap works`,
`# Links`: one note per question, as repositories of one file per question write them. The
file name asks (without its `?`, which not every file system allows), the title names what it
asks about, and everything under the title answers it, its sub-headings sections of the answer.

Both are needed. A name that only repeats the title ("Design patterns.md", "# Design
patterns") or says nothing of it asks no more than any note's name does; a title such as "GPU
memory hierarchy" in a note named after it asks nothing at all.

A heading under the title that asks with a mark (`## How do we use fragments?`, often a link
to the page its answer came from) is one more question the note answers: a card of its own,
its answer what it holds, the name's card keeping the rest. Only the mark counts here: in a
note of one question, `## How ArrayMap works`, `## Implement a BackupAgent` or `## Define a
schema` name parts of the answer, however much their wording asks elsewhere. When the title
would keep no text of its own, nothing is taken from it.

A note with no heading at all (`What is savedInstanceState bundle.md`: paragraphs and lists)
is one card, its name the question, when the name asks and nothing else in the note is a card,
by any recogniser or as a cloze deletion: the name is then the only place the note says what
it answers. A name may ask and the note not answer it (`What I read this week.md`, a list of
links), so the name is taken at its word only where the note gives nothing else to read; a
short first line standing alone is its title, not its answer. A `Q:` line, a `<details>` fold
or a list item that asks are the author's own cards and keep the note theirs; a heading says
what a note is about better than its name does, so a note with one is read by the rules above.
"""

import re
import unicodedata
from functools import lru_cache

from app.content.notes.outline import Heading, Outline
from app.content.notes.recognisers.lines import outline_lines
from app.content.notes.wording import (
    Found,
    NotTaken,
    Reason,
    Recognised,
    Syntax,
    asks,
    generic_question,
    question_text,
)

# Words a title joins its subjects with ("Room vs SQLite" for "Difference between Room and
# SQLite"): no part of what the question asks about.
_JOINING = frozenset({"vs", "versus", "and", "or", "the", "a", "an", "of", "in", "on", "for"})
_WORD = re.compile(r"\w+")
# An expansion after the subject: "ANR (Application Not Responding)" for "What is ANR".
_BRACKETED = re.compile(r"[(（][^()（）]*[)）]")


# Names of a folder's own pages, never one of its questions.
_FOLDER_PAGES = frozenset({"readme", "index", "_index", "summary", "toc", "contents"})
# A folder whose notes are named as questions: at least this many notes, and at most one name
# in this many that does not ask.
_NAMED_FOLDER_NOTES = 10
_NAMED_FOLDER_OTHERS = 10


def named_folder(names: list[str]) -> bool:
    """Whether the notes named `names` (one folder's) are each named as the question it answers:
    "What is a Fragment", "How does ANR happen", … A note among them named as a topic
    ("Activity Lifecycle") answers a question too; its name is the question."""
    notes = [name for name in names if name.casefold() not in _FOLDER_PAGES]
    if len(notes) < _NAMED_FOLDER_NOTES:
        return False
    allowed = len(notes) // _NAMED_FOLDER_OTHERS
    others = 0
    for name in notes:  # a folder of topics is told by its first few names
        others += _asking(name) is None
        if others > allowed:
            return False
    return True


def file_name_question(outline: Outline, name: str, *, named: bool = False) -> Recognised | None:
    """The note as one card whose question is its file name `name`, or None; each sub-heading
    of the title that asks with a mark is a card of its own.

    `named`: the note is in a folder of notes named as questions (named_folder), where a name
    that does not ask is the question all the same."""
    title = _title(outline)
    if title is None:
        return None
    subject, marked = question_text(title.text)
    if marked:
        return None  # `# What do you know about X?`: the author's own question heading
    question = _asking(name)
    if question is None and named and asks(subject):
        return None  # `# How does it work` in a topic-named note: read as the heading it is
    if question is None and named:
        question = _named(name)
        if question is None or _asks_throughout(outline, title):
            return None
    elif question is None or _squashed(question) == _squashed(subject):
        return None  # the title's own words, asking or not, are read as a heading's
    elif not (named or _names(question, subject)) or _asks_throughout(outline, title):
        return None  # in a folder of named questions, a title may word its subject its own way
    if not outline.holds_text(title.end, len(outline.lines)):
        return None
    return _named_cards(outline, title, question)


def untitled_question(
    outline: Outline, name: str, found: Recognised, *, named: bool = False
) -> Recognised | None:
    """A note without headings, in which `found` holds no card, as one card whose question is
    its file name `name` (what it says, in a folder of notes `named` as questions); or None."""
    # A question written with no answer under it is still the author's, and told as such.
    unanswered = any(item.reason == Reason.NO_ANSWER for item in found.not_taken)
    if outline.headings or found.cards or unanswered:
        return None
    question = _named(name) if named else _asking(name)
    if question is None:
        return None
    titles = [item for item in found.not_taken if item.reason == Reason.TITLE]
    taken = {item.line for item in titles}
    body = [line for line in outline_lines(outline, 0, len(outline.lines)) if line[0] not in taken]
    first = next((index for index, text in body if text.strip()), None)
    if first is None:
        return None
    whole = Recognised(not_taken=titles, title=found.title, plain=True)
    whole.cards.append(Found(question, first, None, body, "", Syntax.FILE_NAME))
    return whole


def _named_cards(outline: Outline, title: Heading, question: str) -> Recognised:
    """The name's card, everything after the title but the headings that ask, then theirs."""
    asked = _asked_below(outline, title)
    questions = {heading.line for heading in asked}
    held = _held(asked)
    body = outline_lines(outline, title.end, len(outline.lines))
    found = Recognised(title=title.text)
    found.not_taken.append(NotTaken(title.line, title.text, Reason.TITLE))
    found.not_taken += [
        NotTaken(heading.line, heading.text, Reason.INSIDE_ANSWER)
        for heading in outline.headings
        if heading is not title and heading.line not in questions
    ]
    kept = [line for line in body if line[0] not in held]
    found.cards.append(Found(question, title.line, None, kept, "", Syntax.FILE_NAME))
    found.cards += [_asked_card(outline, heading) for heading in asked]
    return found


def _title(outline: Outline) -> Heading | None:
    """The heading the note opens with, when no heading in it is above its level."""
    if not outline.headings:
        return None
    first = outline.headings[0]
    if outline.holds_text(0, first.line) or any(h.level < first.level for h in outline.headings):
        return None
    return first


@lru_cache(maxsize=65_536)  # every scan of a watched folder asks again of the same names
def _asking(name: str) -> str | None:
    """The question a file name asks (`what-is-attention` read with spaces), or None."""
    question = _named(name)
    return question if question is not None and asks(question) else None


def _named(name: str) -> str | None:
    """What a file name says (`activity-lifecycle` read with spaces), or None for a name that
    only names a part of a folder (`README`, `概述`)."""
    if name.casefold() in _FOLDER_PAGES:
        return None
    if " " not in name:
        name = re.sub(r"[-_]+", " ", name)
    question = question_text(name.strip())[0]
    return None if not question or generic_question(question) else question


def _asked_below(outline: Outline, title: Heading) -> list[Heading]:
    """The outermost headings under the title that ask with a mark (`?`, `Q:`), each holding
    an answer; none when the title would keep no answer of its own without them."""
    asked: list[Heading] = []
    for heading in outline.headings:
        if not title.line < heading.line < title.stop:
            continue  # the title's own, not `# Links` or `# Next questions` after it
        if asked and heading.line < asked[-1].stop:
            continue  # inside the answer of the question above it
        marked = question_text(_said(heading))[1]
        if marked and outline.holds_text(heading.end, heading.stop):
            asked.append(heading)
    held = _held(asked)
    kept = outline.blocks_between(title.end, title.stop)
    return asked if any(block.start not in held for block in kept) else []


def _held(asked: list[Heading]) -> set[int]:
    """The lines of the headings that ask and of their answers."""
    return {line for heading in asked for line in range(heading.line, heading.stop)}


def _asked_card(outline: Outline, heading: Heading) -> Found:
    question = question_text(_said(heading))[0]
    body = outline_lines(outline, heading.end, heading.stop)
    return Found(question, heading.line, heading.explicit_id, body, "", Syntax.QUESTION_HEADING)


def _said(heading: Heading) -> str:
    """What a heading says: its link's text when it is one link to where it came from
    (`## [How do we use fragments?](https://…)`)."""
    return heading.link_text or heading.text


def _names(question: str, subject: str) -> bool:
    """Whether the title names what the question asks about: each of its words is one of the
    question's, give or take an ending ("Intent" in "What do you know about Intents")."""
    subject = _BRACKETED.sub(" ", subject)
    if _squashed(subject) and _squashed(subject) in _squashed(question):
        return True  # "Content Provider" in "What's ContentProvider"; 批归一化 in 什么是批归一化
    asked = _words(question)
    words = [word for word in _words(subject) if word not in _JOINING]
    return bool(words) and all(any(_same(word, other) for other in asked) for word in words)


def _asks_throughout(outline: Outline, title: Heading) -> bool:
    """Whether most headings under the title ask: a deck of questions, whatever its name."""
    below = [h for h in outline.headings if h is not title]
    asking = 0
    for heading in below:
        words, marked = question_text(_said(heading))
        asking += marked or asks(words)
    return asking >= 2 and 2 * asking > len(below)


def _words(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def _squashed(text: str) -> str:
    return "".join(_words(text))


def _same(word: str, other: str) -> bool:
    """The same word, or one whose ending differs by a few letters ("communicate",
    "communicating"); a word of fewer than four letters must be the same."""
    if word == other:
        return True
    common = next(
        (at for at, (a, b) in enumerate(zip(word, other, strict=False)) if a != b),
        min(len(word), len(other)),
    )
    return common >= 4 and common >= max(len(word), len(other)) - 3
