"""Turn deck and topic Markdown into plain dataclasses, reporting problems by line."""

import itertools
from dataclasses import replace
from typing import Any

from app.content.errors import ContentError, ContentWarning
from app.content.names import note_folder, note_name, note_stem
from app.content.notes.cloze import ClozeBlock, cloze_id, cloze_mode, cloze_question, take_clozes
from app.content.notes.followups import InNote, split_followups
from app.content.notes.frontmatter import (
    BLOCKS,
    VALID_ID,
    check_slug,
    label_table,
    meta_list,
    meta_str,
    split_front_matter,
)
from app.content.notes.indexes import lists_only_questions
from app.content.notes.labels import body_label, shows_nothing, without_closing_rules
from app.content.notes.links import Link, parse_links
from app.content.notes.outline import Outline, build_outline
from app.content.notes.parsed import (
    Block,
    ParsedCard,
    ParsedDeck,
    ParsedTopic,
    derived_card_id,
    slug_from_path,
)
from app.content.notes.recognise import recognise
from app.content.notes.reversed import SUFFIX, reverse_all, with_reversed
from app.content.notes.spans import Groups, NoteTokens
from app.content.notes.wording import (
    Found,
    NotTaken,
    Reason,
    Recognised,
    Syntax,
    is_navigation,
    question_text,
)


class _CardBuilder:
    def __init__(self, found: Found, groups: Groups | None) -> None:
        self.found = found
        self.blocks: dict[str, list[tuple[int, str]]] = {name: [] for name in BLOCKS}
        self.current = "answer"
        self.groups = groups
        self.cut: dict[int, int] = {}  # line: the characters its label took
        self.answered = False  # whether the answer holds any text yet

    def add(self, index: int, text: str) -> None:
        self.blocks[self.current].append((index, text))
        self.answered = self.answered or (self.current == "answer" and bool(text.strip()))

    def block(self, name: str, first_line: int) -> Block:
        return _join_block(self.blocks[name], first_line, self.groups, self.cut)


def _join_block(
    entries: list[tuple[int, str]],
    first_line: int,
    groups: Groups | None = None,
    cut: dict[int, int] | None = None,
) -> Block:
    """Join (line index, text) entries into a Block, dropping blank lines at either end.

    With the note's `groups`, the block also gets its tokens in the note's parse, if it has any.
    """
    start, stop = 0, len(entries)
    while start < stop and not entries[start][1].strip():
        start += 1
    while stop > start and not entries[stop - 1][1].strip():
        stop -= 1
    if start == stop:
        return Block("", 0, () if groups else None)
    entries = entries[start:stop]
    # A block's lines need not be contiguous (a label or heading line, or another block, may
    # sit in between); blank lines keep each one at its file offset so errors point at it.
    lines = [entries[0][1]]
    for (previous, _), (index, text) in itertools.pairwise(entries):
        lines += [""] * (index - previous - 1) + [text]
    spans = groups.spans(entries, cut or {}) if groups else None
    return Block("\n".join(lines), first_line + entries[0][0], spans)


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
    path: str, text: str, *, reading: bool = False, house: bool = False, named: bool = False
) -> tuple[ParsedDeck | ParsedTopic, list[ContentError]]:
    """Parse one note: a deck when it holds cards, else (or with `reading`) a reading page.

    `house`: a note under the house layout's `decks/`, read by its rules where they differ.
    `named`: a note in a folder of notes named as questions (app.content.notes.named).
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
    found = recognise(
        outline,
        style=None if style == "auto" else style,
        house=house,
        name=note_stem(path),
        named=named,
        clozes=bool(clozes),
    )
    note = NoteTokens("\n".join(outline.lines), first, outline.tokens)
    groups = Groups(outline.tokens, outline.lines)
    if kind == "topic" or (kind != "deck" and (not (found.cards or clozes) or reading)):
        topic = _topic(path, meta, lines, first, found, errors, groups)
        topic.note = note
        return topic, errors
    deck = _deck(path, meta, outline, first, found, style, errors, groups)
    deck.cards = _more_kinds(deck, meta, written, clozes, outline, first, errors)
    deck.note = note
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
        question_span=None,
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
    groups: Groups,
) -> ParsedDeck:
    title = meta_str(meta, "title", path, errors) or found.title or note_name(path)
    slug = meta_str(meta, "slug", path, errors)
    if slug:
        check_slug(slug, path, errors)
    else:
        slug = slug_from_path(path)
    labels = label_table(meta, path, errors)
    protected = outline.protected
    cards: list[ParsedCard] = []
    seen: dict[str, int] = {}
    errors += [
        ContentError.of("card_no_answer", path, first + item.line, question=item.text)
        for item in found.not_taken
        if item.reason == Reason.NO_ANSWER
    ]
    for item in found.cards:
        card = _finish_card(item, len(cards), first, labels, protected, path, errors, groups)
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
        intro=_join_block(list(found.intro), first, groups),
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
    groups: Groups | None = None,
) -> ParsedCard | None:
    line = first + found.line
    if not found.question.strip(" ?？"):
        errors.append(ContentError.of("card_no_question", path, line))
        return None
    if found.explicit_id is not None and not VALID_ID.match(found.explicit_id):
        errors.append(ContentError.of("card_id_invalid", path, line, id=found.explicit_id))
        return None
    builder = _CardBuilder(found, groups)
    if groups is not None and 0 <= found.line < len(groups.lines):
        # A question that opens a paragraph (`1.warp 的大小` over its answer's lines) is cut
        # off it like a label, so that the answer keeps the rest of that paragraph's tokens.
        builder.cut[found.line] = len(groups.lines[found.line])
    for at, (index, text) in enumerate(found.body):
        if index not in protected and is_navigation(text):
            continue
        label = None
        if index not in protected:
            label = body_label(found.body, at, labels, builder.current, answered=builder.answered)
        if label:
            builder.current = label[0]
            builder.cut[index] = len(text) - len(label[1])
            if label[1]:
                builder.add(index, label[1])
            continue
        builder.add(index, text)
    builder.blocks["answer"] = without_closing_rules(builder.blocks["answer"], groups)
    answer = builder.block("answer", first)
    if shows_nothing(answer.text):
        errors.append(ContentError.of("card_no_answer", path, line, question=found.question))
        return None
    if _index_of_questions(found.question, answer, groups):
        errors.append(ContentError.of("card_lists_questions", path, line, question=found.question))
        return None
    card_id = found.explicit_id or derived_card_id(found.question)
    followups = builder.block("followups", first)
    in_note = None
    if groups is not None and followups.spans:
        in_note = InNote(groups.tokens, followups.spans, followups.line - first)
    prose, prose_line, questions = split_followups(
        followups.text, followups.line, card_id, path, errors, in_note
    )
    return ParsedCard(
        id=card_id,
        explicit_id=found.explicit_id is not None,
        question=found.question,
        section=found.section,
        position=position,
        line=line,
        answer=answer,
        followups=_prose(followups, prose, prose_line, first, builder),
        pitfalls=builder.block("pitfalls", first),
        links=_links(builder.block("reading", first), path, errors),
        questions=questions,
        recogniser=found.recogniser,
        question_span=groups.question(found.line, found.question) if groups else None,
        stem=_join_block(found.stem or [], first, groups),
    )


def _index_of_questions(question: str, answer: Block, groups: Groups | None) -> bool:
    """Whether a title that asks nothing has only a list of questions as its answer."""
    if groups is None or not answer.spans or question_text(question)[1]:
        return False
    return lists_only_questions(groups.tokens, answer.spans)


def _links(block: Block, path: str, errors: list[ContentError]) -> list[Link]:
    return parse_links(block.text, block.line, path, errors)


def _prose(followups: Block, prose: str, line: int, first: int, builder: _CardBuilder) -> Block:
    """The follow-ups block's prose: the block itself, or what is left around its questions."""
    if prose == followups.text:
        return followups
    if builder.groups is None or not prose:
        return Block(prose, line)
    entries = [(line - first + offset, text) for offset, text in enumerate(prose.split("\n"))]
    return Block(prose, line, builder.groups.spans(entries, builder.cut))


def _topic(
    path: str,
    meta: dict[str, Any],
    lines: list[str],
    first: int,
    found: Recognised,
    errors: list[ContentError],
    groups: Groups | None = None,
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
    entries = [(index, line) for index, line in enumerate(body_lines) if index != skip]
    spans = _join_block(entries, first, groups).spans if groups else None
    return ParsedTopic(
        path=path,
        slug=slug,
        title=title or note_name(path),
        aliases=meta_list(meta, "aliases", path, errors),
        summary=meta_str(meta, "summary", path, errors),
        body=Block(body, first + leading if body else first, spans),
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
    topic = _topic(path, meta, lines, first, found, errors, Groups(outline.tokens, lines))
    topic.note = NoteTokens("\n".join(lines), first, outline.tokens)
    return topic, errors


def _title_of(outline: Outline) -> str:
    first = outline.headings[0] if outline.headings else None
    return first.text if first is not None and first.level == 1 else ""
