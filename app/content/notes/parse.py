"""Turn deck and topic Markdown into plain dataclasses, reporting problems by line."""

import hashlib
import itertools
import re
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote

from app.content.errors import ContentError, ContentWarning
from app.content.names import normalise_title, note_folder, note_stem
from app.content.notes.cloze import ClozeBlock, cloze_id, cloze_mode, cloze_question, take_clozes
from app.content.notes.followups import ParsedFollowup, split_followups
from app.content.notes.frontmatter import (
    BLOCKS,
    VALID_ID,
    check_slug,
    label_key,
    label_table,
    meta_list,
    meta_str,
    split_front_matter,
)
from app.content.notes.outline import Outline, build_outline
from app.content.notes.recognise import recognise
from app.content.notes.reversed import SUFFIX, reverse_all, with_reversed
from app.content.notes.wording import (
    Found,
    NotTaken,
    Reason,
    Recognised,
    Syntax,
    is_navigation,
)

_LABEL = re.compile(r"^\*\*(.+?)\*\*[ \t]*[。.:：]?[ \t]*(.*)$")
# A label without bold ("面试回答。 …", "Answer: …") must end in punctuation.
_PLAIN_LABEL = re.compile(r"^([^\s*#>|`$-][^。.:：*]{0,15}?)[ \t]*([。.:：])[ \t]*(.*)$")
_TAGS = re.compile(r"</?[A-Za-z][^<>]*>")
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])[ \t]+")
_WIKILINK = re.compile(r"^!?\[\[(.+?)\]\]$")
_MDLINK = re.compile(r"^\[(.+?)\]\((\S+?)\)$")
_URL = re.compile(r"^https?://\S+$")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


@dataclass
class Block:
    """Markdown text plus the file line its first line sits on."""

    text: str = ""
    line: int = 0


@dataclass
class Link:
    title: str
    target: str
    external: bool
    line: int


@dataclass
class ParsedCard:
    id: str
    explicit_id: bool
    question: str
    section: str
    position: int
    line: int
    answer: Block
    followups: Block
    pitfalls: Block
    links: list[Link] = field(default_factory=list)
    # The follow-up questions of the follow-ups block; `followups` keeps only its other prose.
    questions: list[ParsedFollowup] = field(default_factory=list)
    recogniser: Syntax = Syntax.HOUSE  # which way of writing a card this one was found by
    kind: str = "basic"  # basic | cloze | reversed
    # A cloze card's deletion number in its block (`answer`, in the normal form of notes.cloze).
    cloze: int = 0

    def fingerprint(self) -> str:
        """Hash everything that, when changed, makes the stored card out of date."""
        # Absent for a basic card, whose hash therefore stays what it was.
        kind = [] if self.kind == "basic" else [f"\x1d{self.kind}\x1f{self.cloze}"]
        parts = [
            *kind,
            self.question,
            self.section,
            self.answer.text,
            self.followups.text,
            self.pitfalls.text,
            *(f"{link.title}\x1f{link.target}" for link in self.links),
            # Absent for a card without questions, whose hash therefore stays what it was.
            *(f"\x1d{q.id}\x1f{q.question}\x1f{q.answer}" for q in self.questions),
        ]
        return hashlib.sha256("\x1e".join(parts).encode()).hexdigest()


@dataclass
class ParsedDeck:
    path: str
    slug: str
    title: str
    description: str
    tags: list[str]
    language: str
    style: str
    intro: Block
    cards: list[ParsedCard]
    folder: str = ""
    breaks: bool = False  # render single line breaks as breaks (notes written as plain text)
    not_taken: list[NotTaken] = field(default_factory=list)


@dataclass
class ParsedTopic:
    path: str
    slug: str
    title: str
    aliases: list[str]
    summary: str
    body: Block
    folder: str = ""
    breaks: bool = False


def derived_card_id(question: str) -> str:
    key = normalise_title(question).rstrip("?？ ")
    return "q-" + hashlib.sha1(key.encode()).hexdigest()[:12]


def slug_from_path(path: str) -> str:
    """A URL-safe slug from a note's file name (a hash of its path when the name has none)."""
    stem = note_stem(path)
    ascii_stem = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", ascii_stem).strip("-._")
    if slug == stem or (slug and len(slug) >= len(stem) // 2):
        return slug
    digest = hashlib.sha1(path.encode()).hexdigest()[:8]
    return f"{slug}-{digest}" if slug else f"n-{digest}"


def parse_links(block: Block, path: str, errors: list[ContentError]) -> list[Link]:
    """Read a continue-reading block: entries split by ' / ' or one per list item."""
    links: list[Link] = []
    for offset, raw in enumerate(block.text.split("\n")):
        line = _LIST_MARKER.sub("", raw.strip())
        for entry in (part.strip() for part in line.split(" / ")):
            if not entry:
                continue
            lineno = block.line + offset
            if match := _WIKILINK.match(entry):
                target = match.group(1).split("|", 1)
                title = target[-1].strip()
                links.append(Link(title, target[0].strip(), False, lineno))
            elif match := _MDLINK.match(entry):
                title, target = match.group(1).strip(), match.group(2).strip()
                links.append(_target_link(title, target, lineno, path, errors))
            elif _URL.match(entry):
                links.append(Link(entry, entry, True, lineno))
            else:
                links.append(Link(entry, entry, False, lineno))
    return [link for link in links if link.target]


def _target_link(title: str, target: str, line: int, path: str, errors: list[ContentError]) -> Link:
    scheme = _SCHEME.match(target)
    if scheme is None:
        note = unquote(target.split("#", 1)[0])
        return Link(title, note_stem(note) if note else title, False, line)
    if scheme.group(1).lower() in ("http", "https"):
        return Link(title, target, True, line)
    errors.append(ContentError.of("link_unsafe", path, line, target=target))
    return Link(title, "", True, line)


class _CardBuilder:
    def __init__(self, found: Found) -> None:
        self.found = found
        self.blocks: dict[str, list[tuple[int, str]]] = {name: [] for name in BLOCKS}
        self.current = "answer"

    def add(self, index: int, text: str) -> None:
        self.blocks[self.current].append((index, text))

    def block(self, name: str, first_line: int) -> Block:
        return _join_block(self.blocks[name], first_line)


def _join_block(entries: list[tuple[int, str]], first_line: int) -> Block:
    """Join (line index, text) entries into a Block, dropping blank lines at either end."""
    start, stop = 0, len(entries)
    while start < stop and not entries[start][1].strip():
        start += 1
    while stop > start and not entries[stop - 1][1].strip():
        stop -= 1
    if start == stop:
        return Block("", 0)
    entries = entries[start:stop]
    # A block's lines need not be contiguous (a label or heading line, or another block, may
    # sit in between); blank lines keep each one at its file offset so errors point at it.
    lines = [entries[0][1]]
    for (previous, _), (index, text) in itertools.pairwise(entries):
        lines += [""] * (index - previous - 1) + [text]
    return Block("\n".join(lines), first_line + entries[0][0])


def _label(line: str, labels: dict[str, str], current: str) -> tuple[str, str] | None:
    """(block, text after the label) when `line` opens a labelled block, bold or plain.

    A plain label ends in a full stop ("面试回答。 …", as notes written without Markdown
    do); with a colon only an answer's own label counts ("A: …" after "Q: …"), since "追问：…"
    in running text is prose.
    """
    match = _LABEL.match(line)
    if match and (block := labels.get(label_key(match.group(1)))):
        return block, match.group(2)
    match = _PLAIN_LABEL.match(line)
    if not match:
        return None
    block = labels.get(label_key(match.group(1)))
    if block is None or (match.group(2) in ":：" and not (block == current == "answer")):
        return None
    return block, match.group(3)


# What shows nothing on a card: tags (`<hr />`, `<br>`), rules, non-breaking spaces.
_RULE = re.compile(r"^[ \t]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$", re.MULTILINE)


def _empty(text: str) -> bool:
    """Whether an answer holds nothing to read: only rules, tags and blank space."""
    text = _TAGS.sub("", text).replace("&nbsp;", " ")
    return not _RULE.sub("", text).strip()


# A note of nothing but `<details` lines is one mistake, not a hundred thousand warnings.
_UNCLOSED_LISTED = 20


def _unclosed_warnings(outline: Outline, path: str, first: int) -> list[ContentError]:
    """A warning per unclosed raw HTML block, the first few of them, then their count."""
    folds = outline.unclosed
    warnings: list[ContentError] = [
        ContentWarning.of("html_unclosed", path, first + fold.line, tag=fold.tag)
        for fold in folds[:_UNCLOSED_LISTED]
    ]
    if len(folds) > _UNCLOSED_LISTED:
        line = first + folds[_UNCLOSED_LISTED].line
        rest = len(folds) - _UNCLOSED_LISTED
        warnings.append(ContentWarning.of("html_unclosed_more", path, line, count=rest))
    return warnings


def parse_note(
    path: str, text: str, *, reading: bool = False, house: bool = False
) -> tuple[ParsedDeck | ParsedTopic, list[ContentError]]:
    """Parse one note: a deck when it holds cards, else (or with `reading`) a reading page.

    `house`: a note under the house layout's `decks/`, read by its rules where they differ.
    """
    errors: list[ContentError] = []
    meta, lines, first = split_front_matter(path, text, errors)
    kind = meta_str(meta, "kind", path, errors) or meta_str(meta, "type", path, errors)
    style = meta_str(meta, "style", path, errors) or None
    if style not in (None, "question", "numbered", "auto"):
        errors.append(ContentError.of("style_unknown", path, 1, style=str(style)))
        style = None
    outline = build_outline(lines)
    errors += _unclosed_warnings(outline, path, first)
    # Deletions are read from the note as written; everything else reads it without markers.
    written = lines
    mode = cloze_mode(meta, path, errors)
    clozes, stripped = take_clozes(outline, first, mode, path, errors)
    if stripped is not None:
        outline = build_outline(stripped)
        lines = stripped
    found = recognise(outline, style=None if style == "auto" else style, house=house)
    if kind == "topic" or (kind != "deck" and (not (found.cards or clozes) or reading)):
        return _topic(path, meta, lines, first, found, errors), errors
    deck = _deck(path, meta, outline, first, found, style, errors)
    deck.cards = _more_kinds(deck, meta, written, clozes, outline, first, errors)
    return deck, errors


def _more_kinds(
    deck: ParsedDeck,
    meta: dict[str, Any],
    written: list[str],
    clozes: list[ClozeBlock],
    outline: Outline,
    first: int,
    errors: list[ContentError],
) -> list[ParsedCard]:
    """The deck's cards with their reverses and its cloze cards (notes.reversed, notes.cloze)."""
    every = reverse_all(meta, deck.path, errors)
    cards = with_reversed(deck.cards, written, first, every=every, reverse=_reverse_card)
    cards = _with_clozes(cards, deck.slug, clozes, outline, first)
    if len(cards) != len(deck.cards):
        for position, card in enumerate(cards):
            card.position = position
    return cards


def _reverse_card(card: ParsedCard) -> ParsedCard:
    """The definition → term card of a `term ::: definition` card."""
    return replace(
        card,
        id=card.id + SUFFIX,
        explicit_id=False,
        question=card.answer.text.strip(),
        answer=Block(card.question, card.line),
        followups=Block(),
        pitfalls=Block(),
        links=[],
        questions=[],
    )


def _with_clozes(
    cards: list[ParsedCard], slug: str, blocks: list[ClozeBlock], outline: Outline, first: int
) -> list[ParsedCard]:
    """The deck's cards and one card per deletion number of each block, in line order."""
    cloze_cards: list[ParsedCard] = []
    seen: dict[str, int] = {}
    for block in blocks:
        for number in block.numbers:
            card_id = cloze_id(slug, block.text, number)
            if card_id in seen:  # the same text deleted twice in one note: told apart by order
                seen[card_id] += 1
                card_id = f"{card_id}.{seen[card_id]}"
            else:
                seen[card_id] = 0
            cloze_cards.append(
                ParsedCard(
                    id=card_id,
                    explicit_id=False,
                    question=cloze_question(block.text, number),
                    section=_section_at(outline, block.line - first),
                    position=0,
                    line=block.line,
                    answer=Block(block.text, block.line),
                    followups=Block(),
                    pitfalls=Block(),
                    recogniser=Syntax.CLOZE,
                    kind="cloze",
                    cloze=number,
                )
            )
    # In the note's order: a block's cards follow the question whose answer holds it.
    return sorted([*cards, *cloze_cards], key=lambda card: card.line)


def _section_at(outline: Outline, index: int) -> str:
    """The text of the last heading above body line `index`, "" when there is none."""
    # A level-1 heading is the note's title, not a section of it.
    above = [h for h in outline.headings if h.line < index and h.level > 1]
    return above[-1].text if above else ""


def parse_deck(path: str, text: str) -> tuple[ParsedDeck | None, list[ContentError]]:
    """Parse one note as a deck; a note without cards is an error here."""
    note, errors = parse_note(path, text, house=True)
    if isinstance(note, ParsedTopic):
        errors.append(ContentError.of("deck_no_cards", path, note.body.line or 1))
        return None, errors
    return note, errors


def _deck(
    path: str,
    meta: dict[str, Any],
    outline: Outline,
    first: int,
    found: Recognised,
    style: str | None,
    errors: list[ContentError],
) -> ParsedDeck:
    title = meta_str(meta, "title", path, errors) or found.title or note_stem(path)
    slug = meta_str(meta, "slug", path, errors)
    if slug:
        check_slug(slug, path, errors)
    else:
        slug = slug_from_path(path)
    labels = label_table(meta, path, errors)
    protected = outline.protected
    cards: list[ParsedCard] = []
    seen: dict[str, int] = {}
    for item in found.cards:
        card = _finish_card(item, len(cards), first, labels, protected, path, errors)
        if card is None:
            continue
        if card.id in seen and not card.explicit_id:
            # The same question twice in one note: told apart by where it is.
            card.id = derived_card_id(f"{card.question}\x1f{card.section}\x1f{seen[card.id]}")
        seen[card.id] = seen.get(card.id, 0) + 1
        cards.append(card)
    return ParsedDeck(
        path=path,
        slug=slug,
        title=title,
        description=meta_str(meta, "description", path, errors),
        tags=meta_list(meta, "tags", path, errors),
        language=meta_str(meta, "language", path, errors) or "zh",
        style=style or "auto",
        intro=_join_block(list(found.intro), first),
        cards=cards,
        folder=note_folder(path),
        breaks=found.plain,
        not_taken=[NotTaken(first + item.line, item.text, item.reason) for item in found.not_taken],
    )


def _finish_card(
    found: Found,
    position: int,
    first: int,
    labels: dict[str, str],
    protected: set[int],
    path: str,
    errors: list[ContentError],
) -> ParsedCard | None:
    line = first + found.line
    if not found.question.strip(" ?？"):
        errors.append(ContentError.of("card_no_question", path, line))
        return None
    if found.explicit_id is not None and not VALID_ID.match(found.explicit_id):
        errors.append(ContentError.of("card_id_invalid", path, line, id=found.explicit_id))
        return None
    builder = _CardBuilder(found)
    for index, text in found.body:
        if index not in protected and is_navigation(text):
            continue
        label = None if index in protected else _label(text, labels, builder.current)
        if label:
            builder.current = label[0]
            if label[1]:
                builder.add(index, label[1])
            continue
        builder.add(index, text)
    answer = builder.block("answer", first)
    if _empty(answer.text):
        errors.append(ContentError.of("card_no_answer", path, line, question=found.question))
        return None
    card_id = found.explicit_id or derived_card_id(found.question)
    followups = builder.block("followups", first)
    prose, prose_line, questions = split_followups(
        followups.text, followups.line, card_id, path, errors
    )
    return ParsedCard(
        id=card_id,
        explicit_id=found.explicit_id is not None,
        question=found.question,
        section=found.section,
        position=position,
        line=line,
        answer=answer,
        followups=Block(prose, prose_line),
        pitfalls=builder.block("pitfalls", first),
        links=parse_links(builder.block("reading", first), path, errors),
        questions=questions,
        recogniser=found.recogniser,
    )


def _topic(
    path: str,
    meta: dict[str, Any],
    lines: list[str],
    first: int,
    found: Recognised,
    errors: list[ContentError],
) -> "ParsedTopic":
    title = meta_str(meta, "title", path, errors)
    skip = -1
    if not title and found.title:
        title = found.title
        skip = next((item.line for item in found.not_taken if item.reason == Reason.TITLE), -1)
    body_lines = ["" if index == skip else line for index, line in enumerate(lines)]
    slug = meta_str(meta, "slug", path, errors)
    if slug:
        check_slug(slug, path, errors)
    else:
        slug = slug_from_path(path)
    leading = next((index for index, line in enumerate(body_lines) if line.strip()), 0)
    body = "\n".join(body_lines[leading:]).rstrip("\n")
    return ParsedTopic(
        path=path,
        slug=slug,
        title=title or note_stem(path),
        aliases=meta_list(meta, "aliases", path, errors),
        summary=meta_str(meta, "summary", path, errors),
        body=Block(body, first + leading if body else first),
        folder=note_folder(path),
        breaks=found.plain,
    )


def parse_topic(path: str, text: str) -> tuple[ParsedTopic | None, list[ContentError]]:
    """Parse one note as a reading page, whatever it holds."""
    errors: list[ContentError] = []
    meta, lines, first = split_front_matter(path, text, errors)
    outline = build_outline(lines)
    found = recognise(outline, style="question")  # only the title matters here
    found.title = _title_of(outline)
    found.plain = not outline.headings
    return _topic(path, meta, lines, first, found, errors), errors


def _title_of(outline: Outline) -> str:
    first = outline.headings[0] if outline.headings else None
    return first.text if first is not None and first.level == 1 else ""
