"""A parsed deck's cards and a topic's body compiled, each block from the note's one parse.

A block with token ranges in the note's parse (app.content.notes.spans) is rendered from those
tokens; one the recognisers rewrote (or a cloze card's sides) is parsed on its own.
"""

import hashlib
import html

from app.content.compile.cloze import cloze_forms
from app.content.compile.compiled import (
    CompiledCard,
    CompiledDeck,
    CompiledFollowup,
    CompiledTopic,
)
from app.content.compile.render import Rendered, Renderer
from app.content.errors import ContentError
from app.content.notes.parsed import Block, ParsedCard, ParsedDeck, ParsedTopic
from app.content.notes.spans import NoteTokens


def render_block(
    renderer: Renderer,
    note: NoteTokens | None,
    block: Block,
    *,
    path: str,
    errors: list[ContentError],
    breaks: bool,
    points: bool = False,
    sections: bool = False,
) -> Rendered:
    """Render `block` from its tokens in the note's parse, or parse it when it has none."""
    tokens = note.take(block.spans) if note is not None and block.text else None
    if tokens is None:
        return renderer.render(
            block.text,
            path=path,
            line=block.line,
            errors=errors,
            breaks=breaks,
            points=points,
            sections=sections,
        )
    return renderer.render_tokens(
        tokens,
        path=path,
        line=note.first if note else 0,
        errors=errors,
        breaks=breaks,
        points=points,
        sections=sections,
    )


def _question(
    renderer: Renderer,
    note: NoteTokens | None,
    card: ParsedCard,
    path: str,
    errors: list[ContentError],
) -> Rendered:
    """A card's question: its heading's tokens, or its text parsed as one line."""
    tokens = note.inline(card.question_span) if note is not None else None
    if tokens is None:
        return renderer.render(card.question, path=path, line=card.line, errors=errors, inline=True)
    return renderer.render_tokens(tokens, path=path, line=note.first if note else 0, errors=errors)


# Stored with every card's fingerprint: changing how cards compile rewrites each stored card.
COMPILE_VERSION = "forms-2"


def compile_deck(deck: ParsedDeck, renderer: Renderer, errors: list[ContentError]) -> CompiledDeck:
    """Render every card of `deck` and its introduction; problems are appended to `errors`."""
    note = deck.note

    def render(block: Block, *, points: bool = False) -> Rendered:
        return render_block(
            renderer, note, block, path=deck.path, errors=errors, breaks=deck.breaks, points=points
        )

    cards = []
    for card in deck.cards:
        if card.kind == "cloze":
            cards.append(_compile_cloze(card, deck, renderer, errors))
            continue
        question = _question(renderer, note, card, deck.path, errors)
        # A stem (the code a question asks about) shows under the question, as a cloze
        # card's block does; lists keep the one-line question.
        stem = render(card.stem) if card.stem.text else Rendered("", "")
        answer = render(card.answer, points=True)
        prose = render(card.followups)
        pitfalls = render(card.pitfalls)
        questions, rendered = _compile_followups(
            card, deck.path, renderer, errors, card_breaks=deck.breaks, note=note
        )
        parts = [question, stem, answer, prose, pitfalls, *rendered]
        fingerprint = f"{COMPILE_VERSION}\x1e{card.fingerprint()}"
        cards.append(
            CompiledCard(
                card=card,
                question_html=question.html,
                answer_html=answer.html,
                followups_html=prose.html,
                pitfalls_html=pitfalls.html,
                fingerprint=hashlib.sha256(fingerprint.encode()).hexdigest(),
                followups=questions,
                question_text=_joined([question.text, stem.text]),
                answer_text=answer.text,
                # The follow-up questions rank with the follow-ups' prose.
                extra_text=_joined([*(r.text for r in rendered), prose.text, pitfalls.text]),
                key_points=answer.points,
                anki_fields={
                    "question": question.anki + stem.anki,
                    "answer": answer.anki,
                    "followups": prose.anki,
                    "pitfalls": pitfalls.anki,
                },
                anki_media={name: path for part in parts for name, path in part.media.items()},
                formula_count=sum(part.formulas for part in parts),
                front_html=stem.html,
            )
        )
    return CompiledDeck(deck, render(deck.intro).html, cards)


def _compile_cloze(
    card: ParsedCard, deck: ParsedDeck, renderer: Renderer, errors: list[ContentError]
) -> CompiledCard:
    """A cloze card: its front and back from the block, a title for lists, its Anki text."""
    # Every card of a block renders the same formulas: a problem in them is reported once.
    found: list[ContentError] = []

    def render(text: str) -> Rendered:
        return renderer.render(
            text, path=deck.path, line=card.answer.line, errors=found, breaks=deck.breaks
        )

    forms = cloze_forms(card.answer.text, card.cloze, render)
    errors.extend(dict.fromkeys(error for error in found if error not in errors))
    title = " ".join(forms.front.text.split())
    fingerprint = f"{COMPILE_VERSION}\x1e{card.fingerprint()}"
    parts = [forms.front, forms.back]
    return CompiledCard(
        card=card,
        question_html=html.escape(title),
        answer_html=forms.back.html,
        followups_html="",
        pitfalls_html="",
        fingerprint=hashlib.sha256(fingerprint.encode()).hexdigest(),
        question_text=title,
        answer_text=forms.back.text,
        anki_fields={"text": forms.anki, "extra": ""},
        anki_media={name: path for part in parts for name, path in part.media.items()},
        formula_count=forms.back.formulas,
        front_html=forms.front.html,
    )


def _joined(texts: list[str]) -> str:
    return " ".join(text for text in texts if text)


def _compile_followups(
    card: ParsedCard,
    path: str,
    renderer: Renderer,
    errors: list[ContentError],
    *,
    card_breaks: bool,
    note: NoteTokens | None = None,
) -> tuple[list[CompiledFollowup], list[Rendered]]:
    """Each follow-up question and answer: from its tokens in the note's parse where it has
    them, else from its text."""
    compiled, rendered = [], []
    for item in card.questions:
        cut = note.followup(item.cut) if note is not None else None
        if cut is not None and note is not None:
            asked, answered = cut
            question = renderer.render_tokens(asked, path=path, line=note.first, errors=errors)
            answer = renderer.render_tokens(
                answered, path=path, line=note.first, errors=errors, breaks=card_breaks
            )
        else:
            question = renderer.render(
                item.question, path=path, line=item.line, errors=errors, inline=True
            )
            answer = renderer.render(
                item.answer, path=path, line=item.answer_line, errors=errors, breaks=card_breaks
            )
        compiled.append(
            CompiledFollowup(
                item.id,
                item.position,
                item.line,
                question.html,
                answer.html,
                question_anki=question.anki,
                answer_anki=answer.anki,
            )
        )
        rendered += [question, answer]
    return compiled, rendered


def compile_topic(
    topic: ParsedTopic, renderer: Renderer, errors: list[ContentError]
) -> CompiledTopic:
    """Render a topic's body; problems are appended to `errors`."""
    body = render_block(
        renderer,
        topic.note,
        topic.body,
        path=topic.path,
        errors=errors,
        breaks=topic.breaks,
        sections=True,
    )
    return CompiledTopic(
        topic=topic,
        body_html=body.html,
        wikilinks=[(title, topic.body.line) for title in body.wikilinks],
        text=body.groups,
    )
