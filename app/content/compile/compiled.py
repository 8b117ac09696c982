"""What compile makes of a note: a deck's cards or a topic, in every form their readers need."""

from dataclasses import dataclass, field
from typing import Any

from app.content.compile.points import Point
from app.content.errors import ContentError
from app.content.notes.parsed import ParsedCard, ParsedDeck, ParsedTopic


@dataclass
class CompiledFollowup:
    id: str
    position: int
    line: int
    question_html: str
    answer_html: str
    question_anki: str = ""
    answer_anki: str = ""


@dataclass
class CompiledCard:
    """A card in every form its readers need, all made from one parse of each block."""

    card: ParsedCard
    question_html: str
    answer_html: str
    followups_html: str
    pitfalls_html: str
    fingerprint: str
    followups: list[CompiledFollowup] = field(default_factory=list)
    # Plain text for search, formulas readable: the question, the answer, and the rest
    # (follow-up questions and prose, pitfalls), which ranks below them.
    question_text: str = ""
    answer_text: str = ""
    extra_text: str = ""
    # The answer's key points, each as pieces of answer_html (app.content.compile.points).
    key_points: list[Point] = field(default_factory=list)
    # The Anki note's fields (formulas as TeX), the images they show and the formula count.
    anki_fields: dict[str, str] = field(default_factory=dict)
    anki_media: dict[str, str] = field(default_factory=dict)
    formula_count: int = 0
    # A cloze card's front, a block (its question_html is a one-line title for lists).
    front_html: str = ""


@dataclass
class CompiledDeck:
    deck: ParsedDeck
    intro_html: str
    cards: list[CompiledCard]


@dataclass
class CompiledTopic:
    topic: ParsedTopic
    body_html: str
    wikilinks: list[tuple[str, int]]
    # The body's plain text by group (body, extra, reading), as its level-2 headings divide it.
    text: dict[str, str] = field(default_factory=dict)


@dataclass
class Compiled:
    decks: list[CompiledDeck] = field(default_factory=list)
    topics: list[CompiledTopic] = field(default_factory=list)
    errors: list[ContentError] = field(default_factory=list)
    warnings: list[ContentError] = field(default_factory=list)


# A compiled note less the parsed note in it: a deck's own fields and each card's, or a topic's.
Forms = tuple[dict[str, Any], list[dict[str, Any]]]


def forms_of(compiled: CompiledDeck | CompiledTopic) -> Forms:
    """What a render worker sends back of `compiled`: not the parsed note, which the import
    process has already, cards and all (pickling them a second time cost more than their HTML)."""
    if isinstance(compiled, CompiledTopic):
        return {key: value for key, value in vars(compiled).items() if key != "topic"}, []
    cards = [
        {key: value for key, value in vars(card).items() if key != "card"}
        for card in compiled.cards
    ]
    return {"intro_html": compiled.intro_html}, cards


def with_parsed(forms: Forms, parsed: ParsedDeck | ParsedTopic) -> CompiledDeck | CompiledTopic:
    """The compiled note of `forms` (see forms_of), made from `parsed`: the same note, as named
    here."""
    fields, cards = forms
    if isinstance(parsed, ParsedTopic):
        return CompiledTopic(topic=parsed, **fields)
    compiled = [
        CompiledCard(card=card, **rest) for card, rest in zip(parsed.cards, cards, strict=True)
    ]
    return CompiledDeck(deck=parsed, cards=compiled, **fields)
