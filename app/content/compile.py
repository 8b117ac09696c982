"""Parse and render sources into ready-to-store data, and validate the bank as a whole."""

from collections import defaultdict
from dataclasses import dataclass, field

from app.content.errors import ContentError
from app.content.parse import (
    Block,
    ParsedCard,
    ParsedDeck,
    ParsedTopic,
    normalise_title,
    parse_deck,
    parse_topic,
)
from app.content.render import Renderer
from app.content.source import SourceText


@dataclass
class CompiledCard:
    card: ParsedCard
    question_html: str
    answer_html: str
    followups_html: str
    pitfalls_html: str
    answer_text: str
    search_text: str
    fingerprint: str


@dataclass
class CompiledDeck:
    deck: ParsedDeck
    intro_html: str
    cards: list[CompiledCard]


@dataclass
class CompiledTopic:
    topic: ParsedTopic
    body_html: str
    search_text: str
    wikilinks: list[tuple[str, int]]


@dataclass
class Compiled:
    decks: list[CompiledDeck] = field(default_factory=list)
    topics: list[CompiledTopic] = field(default_factory=list)
    errors: list[ContentError] = field(default_factory=list)


def compile_sources(sources: list[SourceText], renderer: Renderer) -> Compiled:
    """Parse and render every source; collect all errors rather than stopping at the first."""
    out = Compiled()
    for source in sources:
        if source.kind == "deck":
            deck, errors = parse_deck(source.path, source.text)
            out.errors.extend(errors)
            if deck:
                out.decks.append(_compile_deck(deck, renderer, out.errors))
        else:
            topic, errors = parse_topic(source.path, source.text)
            out.errors.extend(errors)
            if topic:
                out.topics.append(_compile_topic(topic, renderer, out.errors))
    return out


def _compile_deck(deck: ParsedDeck, renderer: Renderer, errors: list[ContentError]) -> CompiledDeck:
    def render(block: Block) -> tuple[str, str]:
        result = renderer.render(block.text, path=deck.path, line=block.line, errors=errors)
        return result.html, result.text

    cards = []
    for card in deck.cards:
        question = renderer.render(
            card.question, path=deck.path, line=card.line, errors=errors, inline=True
        )
        answer_html, answer_text = render(card.answer)
        followups_html, followups_text = render(card.followups)
        pitfalls_html, pitfalls_text = render(card.pitfalls)
        cards.append(
            CompiledCard(
                card=card,
                question_html=question.html,
                answer_html=answer_html,
                followups_html=followups_html,
                pitfalls_html=pitfalls_html,
                answer_text=answer_text,
                search_text="\n".join(
                    (question.text, answer_text, followups_text, pitfalls_text)
                ),
                fingerprint=card.fingerprint(),
            )
        )
    intro_html, _ = render(deck.intro)
    return CompiledDeck(deck, intro_html, cards)


def _compile_topic(
    topic: ParsedTopic, renderer: Renderer, errors: list[ContentError]
) -> CompiledTopic:
    body = renderer.render(topic.body.text, path=topic.path, line=topic.body.line, errors=errors)
    return CompiledTopic(
        topic=topic,
        body_html=body.html,
        search_text="\n".join((topic.title, " ".join(topic.aliases), topic.summary, body.text)),
        wikilinks=[(title, topic.body.line) for title in body.wikilinks],
    )


@dataclass(frozen=True)
class TopicRef:
    slug: str
    title: str
    aliases: tuple[str, ...]
    path: str


@dataclass(frozen=True)
class CardRef:
    id: str
    path: str
    line: int


def topic_index(topics: list[TopicRef]) -> tuple[dict[str, str], list[ContentError]]:
    """Map every normalised title, alias and slug to its topic slug; report clashes."""
    index: dict[str, str] = {}
    errors: list[ContentError] = []
    seen_slugs: dict[str, str] = {}
    for topic in topics:
        if topic.slug in seen_slugs:
            errors.append(
                ContentError(
                    topic.path,
                    1,
                    f"topic slug '{topic.slug}' is also used by {seen_slugs[topic.slug]}",
                )
            )
            continue
        seen_slugs[topic.slug] = topic.path
    for topic in topics:
        for name in (topic.slug, topic.title, *topic.aliases):
            key = normalise_title(name)
            other = index.get(key)
            if other is not None and other != topic.slug:
                errors.append(
                    ContentError(topic.path, 1, f"title or alias '{name}' also names topic '{other}'")
                )
                continue
            index[key] = topic.slug
    return index, errors


def duplicate_card_errors(cards: list[CardRef]) -> list[ContentError]:
    by_id: dict[str, list[CardRef]] = defaultdict(list)
    for ref in cards:
        by_id[ref.id].append(ref)
    errors = []
    for card_id, refs in by_id.items():
        if len(refs) < 2:
            continue
        first = refs[0]
        for ref in refs[1:]:
            errors.append(
                ContentError(
                    ref.path,
                    ref.line,
                    f"duplicate card id '{card_id}' (also at {first.path}:{first.line}); "
                    "give one of them an explicit {#id}",
                )
            )
    return errors


def duplicate_deck_errors(decks: list[ParsedDeck]) -> list[ContentError]:
    seen: dict[str, str] = {}
    errors = []
    for deck in decks:
        if deck.slug in seen:
            errors.append(
                ContentError(deck.path, 1, f"deck slug '{deck.slug}' is also used by {seen[deck.slug]}")
            )
        seen.setdefault(deck.slug, deck.path)
    return errors


def resolve(target: str, index: dict[str, str]) -> str | None:
    return index.get(normalise_title(target))
