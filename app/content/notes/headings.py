"""Headings as their author wrote them: which ask a question, which are sections, and where
each question's answer stops; the text between question headings goes to app.content.regions."""

import bisect

from app.content.notes.admonitions import answer_lines
from app.content.notes.kinds import classify, has_text, is_contents_heading, sibling_groups
from app.content.notes.labelled import answer_label, labelled_pairs
from app.content.notes.marked import marked_answer_parts
from app.content.notes.outline import Heading, Outline
from app.content.notes.recognisers import recognise_region
from app.content.notes.recognisers.lines import (
    answer_fold,
    bold_question,
    without_answer_fold,
)
from app.content.notes.topics import topic_cards
from app.content.notes.wording import (
    BOLD_LINE,
    Found,
    Kind,
    Lines,
    NotTaken,
    Reason,
    Recognised,
    Syntax,
    asks,
    numbering,
    question_text,
)


def recognise_headings(outline: Outline, house: bool) -> Recognised:
    found = Recognised(plain=not outline.headings)
    title = _title_heading(outline)
    if title is not None:
        found.title = title.text
        found.not_taken.append(NotTaken(title.line, title.text, Reason.TITLE))
    kinds = classify(outline.headings, outline, title, house)
    parts = marked_answer_parts(outline, kinds)
    for index in parts:
        kinds[index] = Kind.PART
    labelled, held = labelled_pairs(outline, title)
    found.cards += labelled
    for index in held:
        kinds[index] = Kind.LABELLED
    _around_labelled(outline.headings, kinds, held)
    claimed: set[int] = {line for card in labelled for line, _ in card.body}
    claimed |= {outline.headings[index].line for index in held}
    topics = topic_cards(outline, kinds, title)
    level = _level_sections(outline, title, kinds)
    claimed |= _heading_cards(outline, title, kinds, level, found, topics)
    _region_cards(outline, title, kinds, level, claimed, found, parts)
    found.cards.sort(key=lambda card: card.line)
    found.not_taken.sort(key=lambda item: item.line)
    return found


def _around_labelled(headings: list[Heading], kinds: list[Kind], held: set[int]) -> None:
    """A heading that would be a card around a `## 面试题` … `## 面试题剖析` pair is what the pair
    is about: the pair's card asks it again, in full, so the heading is only its section."""
    lines = [headings[index].line for index in held]
    for heading in headings:
        if kinds[heading.index] == Kind.CARD and any(
            heading.line < line < heading.stop for line in lines
        ):
            kinds[heading.index] = Kind.SECTION


def _heading_cards(
    outline: Outline,
    title: Heading | None,
    kinds: list[Kind],
    level: dict[int, Heading],
    found: Recognised,
    topics: set[int],
) -> set[int]:
    """The cards whose question is a heading; returns the lines they hold."""
    cards: list[tuple[Heading, int]] = []  # a card heading and where its answer stops
    stops = _answer_stops(outline.headings, kinds)
    asked = {card.line for card in found.cards}  # `# Question` headings whose text is a card's
    for heading in outline.headings:
        if heading is title or heading.line in asked:
            continue
        kind = kinds[heading.index]
        if kind in (Kind.LABELLED, Kind.PART) or _inside_card(heading, kinds, stops):
            found.not_taken.append(NotTaken(heading.line, _shown(heading), Reason.INSIDE_ANSWER))
        elif kind == Kind.CARD:
            cards.append((heading, stops[heading.index]))
        else:
            found.not_taken.append(NotTaken(heading.line, _shown(heading), Reason(kind.value)))
    claimed: set[int] = set()
    for heading, stop in cards:
        question, _ = question_text(_shown(heading))
        body = [
            (i, t if i in outline.code else without_answer_fold(t))
            for i, t in answer_lines(outline, heading.end, stop)
        ]
        claimed.update(range(heading.line, stop))
        if not question:
            card = Found("", heading.line, heading.explicit_id, body, "", Syntax.HEADING)
            found.cards.append(card)
            continue
        section = _section_of(heading, title, kinds, level)
        syntax = Syntax.NUMBERED_HEADING if numbering(heading.text) else Syntax.QUESTION_HEADING
        if heading.index in topics:
            syntax = Syntax.TOPIC_HEADING
        card = Found(question, heading.line, heading.explicit_id, body, section, syntax)
        _after_label(card, outline, heading)
        found.cards += _split_at_bold_questions(card, outline, topic=heading.index in topics)
    return claimed


def _shown(heading: Heading) -> str:
    """How a heading is named in the import report: a link heading by its link's text, not
    the address after it."""
    return heading.link_text or heading.text


def _after_label(card: Found, outline: Outline, heading: Heading) -> None:
    """A card whose answer is labelled (`答案：`) or folded under a label
    (`<details><summary>Answer</summary>`): what comes before is what it asks about (a task,
    the code of "What is the output?" and its choices), shown with the question, and the
    answer starts at the label."""
    first = heading.children[0].line if heading.children else heading.stop
    label = answer_label(outline, heading.end, first)
    if label is not None:
        start, end = label.start, label.end
    elif fold := answer_fold(outline, heading.end, first):
        start = end = fold.start
    else:
        return
    stem = [(i, text) for i, text in card.body if i < start]
    card.body = [(i, text) for i, text in card.body if i >= end]
    card.stem = stem if any(text.strip() for _, text in stem) else None


def _region_cards(
    outline: Outline,
    title: Heading | None,
    kinds: list[Kind],
    level: dict[int, Heading],
    claimed: set[int],
    found: Recognised,
    parts: set[int],
) -> None:
    """The text no heading card holds, region by region (each region ends at a heading).

    A heading in `parts` (app.content.notes.marked) ends no region: the marked question's
    answer goes on over it, the heading with it.
    """
    headings = [h for h in outline.headings if h.index not in parts]
    held = [h for h in outline.headings if h.index in parts]
    starts = [0] + [h.end for h in headings]
    ends = [h.line for h in headings] + [len(outline.lines)]
    owners: list[Heading | None] = [None, *headings]
    first_card = min((card.line for card in found.cards), default=len(outline.lines))
    for start, end, owner in zip(starts, ends, owners, strict=True):
        if start >= end or start in claimed:
            continue
        section = _section_of(owner, title, kinds, level, own=True) if owner else ""
        region = recognise_region(outline, start, end, section)
        _carry_over_parts(region.cards, held, outline.lines)
        found.cards += region.cards
        found.not_taken += region.not_taken
        if not found.title and region.title:
            found.title = region.title
        if owner is None or owner is title:
            first_card = min([first_card, *(card.line for card in region.cards)])
            found.intro += [(i, t) for i, t in region.intro if i < first_card]


def _carry_over_parts(cards: list[Found], parts: list[Heading], lines: list[str]) -> None:
    """Put each part heading in the answer that goes on over it: headings are no blocks, so
    the region's recognisers never saw it."""
    for heading in parts:
        for card in cards:
            held = [index for index, _ in card.body]
            if card.line < heading.line and held and heading.line < held[-1]:
                at = bisect.bisect_left(held, heading.line)
                card.body[at:at] = [(i, lines[i]) for i in range(heading.line, heading.end)]
                break


def _split_at_bold_questions(card: Found, outline: Outline, *, topic: bool) -> list[Found]:
    """A heading card whose answer holds bold questions ("**1.2 …？**"): one card each.

    Notes write some questions as headings and the next as bold paragraphs. A bold question
    opening a paragraph is the next question when it is numbered, when the answer holds
    several, or when the heading names a topic (app.content.notes.topics): a topic asks
    nothing that the bold question could be part of. A heading left with no answer of its own
    before them is only their section.
    """
    # Under "MyISAM 和 InnoDB 有什么区别？", "**1、是否支持行级锁**" is a point of the answer: a
    # question heading's answer goes on over bold leads that ask only by their words.
    leads = _bold_leads(card, outline, marked_only=not topic and asks(card.question))
    starts = {
        i: (q, rest) for i, q, rest, numbered in leads if numbered or topic or len(leads) >= 2
    }
    if not starts:
        return [card]
    heading_at = {h.line: h for h in outline.headings}
    out = [card]
    target = card
    body: Lines = []
    # A bold question's answer ends at a heading as high as the one it stands under (`## 结构化
    # 回答` after the last `**Q：…**` under `### 第五层`): what follows is the heading card's again.
    above = heading_at[card.line].level + 1 if card.line in heading_at else 1
    limit = 0
    for index, text in card.body:
        heading = heading_at.get(index)
        if index in starts:
            target.body = body
            question, rest = starts[index]
            target = Found(question, index, None, [], card.section, Syntax.BOLD_QUESTION)
            out.append(target)
            body, limit = ([(index, rest)] if rest else []), above
            continue
        if heading is not None:
            if target is not card and heading.level <= limit:
                target.body = body
                target, body = card, card.body
            above = heading.level
        body.append((index, text))
    target.body = body
    if not any(text.strip() for _, text in card.body):
        out.remove(card)
    return out


def _bold_leads(
    card: Found, outline: Outline, *, marked_only: bool
) -> list[tuple[int, str, str, bool]]:
    """The bold questions opening paragraphs of `card`'s answer: their line, question, the rest
    of their paragraph and whether they are numbered; with `marked_only`, those marked alone."""
    leads: list[tuple[int, str, str, bool]] = []
    for index, _ in card.body:
        # A paragraph of the note's own (not of a list, quote or fold) after a blank line.
        block = outline.block_at(index)
        if block is None or block.kind != "paragraph" or not outline.left_blank(index - 1):
            continue
        text = outline.texts.get(index, "")
        lead = BOLD_LINE.match(text.strip())
        bold = bold_question(text) if lead else None
        marked = lead is not None and question_text(lead.group(1))[1]
        # "**2**. Add a font file": a step of the answer, numbered in bold, asks nothing.
        if bold and lead and (marked or (asks(bold[0]) and not marked_only)):
            leads.append((index, bold[0], bold[1], numbering(lead.group(1)) is not None))
    return leads


def _title_heading(outline: Outline) -> Heading | None:
    """The level-1 heading that names the note: the first heading, alone at its level."""
    if not outline.headings:
        return None
    first = outline.headings[0]
    ones = [h for h in outline.headings if h.level == 1]
    if first.level != 1 or len(ones) != 1 or question_text(first.text)[1]:
        return None
    if is_contents_heading(first, outline):
        return None
    return first


def _answer_stops(headings: list[Heading], kinds: list[Kind]) -> dict[int, int]:
    """Where the answer of each card heading stops, by the heading's index."""
    lines = [heading.line for heading in headings]
    return {
        h.index: _answer_stop(h, kinds, headings, lines)
        for h in headings
        if kinds[h.index] == Kind.CARD
    }


def _answer_stop(
    heading: Heading, kinds: list[Kind], headings: list[Heading], lines: list[int]
) -> int:
    stop = heading.stop
    pending = list(reversed(heading.children))  # a stack: children in order, depth first
    while pending:
        child = pending.pop()
        if kinds[child.index] == Kind.CARD:
            return min(stop, child.line)
        pending.extend(reversed(child.children))
    # An HTML question's answer goes on over the Markdown headings after it that are its
    # parts (kinds._html_answer_parts), its own level or not.
    after = bisect.bisect_left(lines, stop, lo=heading.index + 1)
    while after < len(headings) and kinds[after] == Kind.PART:
        after += 1
    return headings[after].line if after < len(headings) else max(stop, headings[-1].stop)


def _inside_card(heading: Heading, kinds: list[Kind], stops: dict[int, int]) -> bool:
    """Whether a heading sits inside an answer: under a card, before any sub-question."""
    parent = heading.parent
    while parent is not None:
        if kinds[parent.index] == Kind.CARD:
            return heading.line < stops[parent.index]
        parent = parent.parent
    return False


def _section_of(
    heading: Heading | None,
    title: Heading | None,
    kinds: list[Kind],
    level: dict[int, Heading],
    *,
    own: bool = False,
) -> str:
    """The section of `heading`: a section heading at its level before it (`level`), else the
    nearest above (or, with `own`, at) it; never the title or a table of contents."""
    if heading is not None and not own and heading.index in level:
        return level[heading.index].text
    node = heading if own else (heading.parent if heading else None)
    while node is not None and kinds[node.index] in (Kind.CARD, Kind.CONTENTS, Kind.PART):
        node = node.parent
    return "" if node is None or node is title else node.text


def _level_sections(
    outline: Outline, title: Heading | None, kinds: list[Kind]
) -> dict[int, Heading]:
    """Question headings and the heading of no text of their own at their level before them.

    `### Basic Probability` then `### Q: …`, `### Q: …`: the first names the section of the
    questions after it, although it does not hold them.
    """
    level: dict[int, Heading] = {}
    for group in sibling_groups(outline.headings):
        section: Heading | None = None
        for heading in group:
            if kinds[heading.index] == Kind.CARD:
                if section is not None:
                    level[heading.index] = section
                continue
            section = None
            if heading is title or kinds[heading.index] not in (Kind.NOT_A_QUESTION, Kind.SECTION):
                continue
            if not has_text(outline, heading.end, heading.stop):
                section = heading
    for heading in {section.index: section for section in level.values()}.values():
        kinds[heading.index] = Kind.SECTION
    return level
