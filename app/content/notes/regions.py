"""Recognisers of the text no heading card holds: `Q:` lines, numbered lines, bold questions,
`question::answer`, a `?` line between question and answer, `<details>`, question callouts and
list items that ask."""

import re
from bisect import bisect_left

from app.content.notes.outline import Block, Outline
from app.content.notes.wording import (
    BOLD_LINE,
    CALLOUT,
    DETAILS_CLOSE,
    DETAILS_OPEN,
    FOLD,
    GENERIC_SUMMARY,
    IDENTIFIER_SCOPE,
    INLINE_CARD,
    NESTED_CALLOUT,
    Q_PREFIX,
    QUOTE,
    SENTENCE_END,
    SEPARATOR,
    SUMMARY,
    TAGS,
    Found,
    Lines,
    NotTaken,
    Recognised,
    asks,
    numbering,
    question_text,
)


def recognise_region(outline: Outline, start: int, end: int, section: str) -> Recognised:
    """Cards written without headings in lines `start`…`end` of the note."""
    out = Recognised()
    lines = outline.lines
    blocks = outline.blocks_between(start, end)
    openers = _numbered_openers(outline, blocks)
    current: Found | None = None
    standalone_title = not outline.headings and blocks and _short_line(outline, blocks[0])

    def open_card(question: str, line: int, recogniser: str, explicit: str | None = None) -> Found:
        card = Found(question, line, explicit, [], section, recogniser)
        out.cards.append(card)
        return card

    def take(index: int, text: str | None = None) -> None:
        if current is not None:
            current.body.append((index, lines[index] if text is None else text))
        else:
            out.intro.append((index, lines[index] if text is None else text))

    skip_until = start
    for position, block in enumerate(blocks):
        if block.start < skip_until:
            continue
        following = blocks[position + 1] if position + 1 < len(blocks) else None
        if position == 0 and standalone_title and following and start == 0:
            out.title = lines[block.start].strip()
            out.not_taken.append(NotTaken(block.start, out.title, "title"))
            continue
        if block.kind == "html_block" and DETAILS_OPEN.search(lines[block.start]):
            stop = _details_end(lines, block.start, end)
            summary, answer = _details(lines, block.start, stop)
            if summary and not GENERIC_SUMMARY.match(summary.strip()) and not FOLD.match(summary):
                card = open_card(summary, block.start, "details")
                card.body += answer
                current = None
            elif current is not None:
                current.body += answer
            elif out.intro and (last := _last_paragraph(out.intro)):
                # "1. What is X?" then <details><summary>Answer</summary>…
                index, asked = last
                out.intro = [(i, t) for i, t in out.intro if i < index]
                text, _ = question_text(_strip_marker(asked))
                out.cards.append(Found(text, index, None, answer, section, "details"))
            skip_until = stop
            continue
        if block.kind == "blockquote" and (callout := CALLOUT.match(lines[block.start])):
            question, body = _callout(lines, block, callout.group(2))
            if question:
                out.cards.append(Found(question, block.start, None, body, section, "callout"))
                current = None
                continue
        if block.kind in ("bullet_list", "ordered_list"):
            for item in block.items:
                first = _strip_marker(lines[item.start])
                if item.start in openers:
                    current = open_card(_opener_question(first), item.start, "numbered-line")
                    current.body += _dedent(outline, item.start + 1, item.end, item.indent)
                    continue
                question, says = question_text(first)
                rest = _dedent(outline, item.start + 1, item.end, item.indent)
                if current is None and says and any(t.strip() for _, t in rest):
                    out.cards.append(
                        Found(question, item.start, None, rest, section, "list-question")
                    )
                    continue
                if current is None and (inline := _inline_card(first)):
                    out.cards.append(
                        Found(
                            inline[0],
                            item.start,
                            None,
                            [(item.start, inline[1])],
                            section,
                            "inline-separator",
                        )
                    )
                    continue
                for index in range(item.start, item.end):
                    if index in openers:
                        current = open_card(_opener_question(lines[index]), index, "numbered-line")
                    else:
                        take(index)
            continue
        if block.kind == "paragraph":
            paragraph = range(block.start, block.end)
            if _is_section_line(outline, block, following, openers):
                section = lines[block.start].strip()
                out.not_taken.append(NotTaken(block.start, section, "section"))
                current = None
                continue
            separator = next((i for i in paragraph if SEPARATOR.match(lines[i])), None)
            if separator is not None and separator > block.start:
                question = " ".join(lines[i].strip() for i in range(block.start, separator))
                body = outline_lines(outline, separator + 1, block.end)
                out.cards.append(
                    Found(question, block.start, None, body, section, "inline-separator")
                )
                current = None
                continue
            for index in paragraph:
                text = lines[index]
                if match := Q_PREFIX.match(_unbold(text)[0]):
                    question, explicit = _split_id(match.group(1))
                    after = _unbold(text)[1]
                    current = open_card(question, index, "qa-lines", explicit)
                    if after:
                        current.body.append((index, after))
                    continue
                if index in openers:
                    current = open_card(_opener_question(text), index, "numbered-line")
                    continue
                if index == block.start and (bold := bold_question(text) or _bold_task(text)):
                    current = open_card(bold[0], index, "bold-question")
                    if bold[1]:
                        current.body.append((index, bold[1]))
                    continue
                if current is None and (inline := _inline_card(text)):
                    out.cards.append(
                        Found(
                            inline[0],
                            index,
                            None,
                            [(index, inline[1])],
                            section,
                            "inline-separator",
                        )
                    )
                    continue
                take(index)
            continue
        for index in range(block.start, block.end):
            take(index)
    # Blank lines between blocks belong with the text around them.
    for card in out.cards:
        card.body = _fill_gaps(card.body, lines)
    return out


def _numbered_openers(outline: Outline, blocks: list[Block]) -> set[int]:
    """Lines that open a card by their number: a run 1, 2, 3… with an answer between each."""
    lines = outline.lines
    candidates: list[tuple[int, int]] = []
    for block in blocks:
        # A numbered line right under a list item is that item's lazy continuation to
        # markdown-it, but to the author it is the next question.
        if block.kind not in ("paragraph", "bullet_list", "ordered_list"):
            continue
        # Items of one Markdown list are a list, unless each asks something.
        listed = {item.start for item in block.items} if len(block.items) > 1 else set()
        for index in range(block.start, block.end):
            if lines[index][:1].isspace() or not (n := _line_number(lines[index])):
                continue
            if index in listed and not asks(_strip_marker(lines[index])):
                continue
            candidates.append((index, n))
    if len(candidates) < 2:
        return set()
    longest = _longest_run(lines, candidates)
    if len(longest) < 2:
        return set()
    texts = [lines[i] for i in longest]
    asking = sum(asks(_strip_marker(t)) for t in texts)
    if outline.headings:
        # Under headings, a numbered run is a list of points unless its lines ask.
        return set(longest) if 2 * asking >= len(texts) else set()
    compact = all(re.match(r"^\d{1,3}[.、．)）](?=\S)", t) for t in texts)
    if len(longest) >= 3 or compact or asking:
        return set(longest)
    return set()


def _line_number(text: str) -> int | None:
    match = re.match(r"^(\d{1,3})[.、．)）]", text)
    if match and not re.match(r"^\d{1,3}[.．]\d", text):
        return int(match.group(1))
    return None


def _longest_run(lines: list[str], candidates: list[tuple[int, int]]) -> list[int]:
    """The longest run of numbered lines n, n+1, … with an answer line between each two.

    Each line follows the latest line numbered one less that has an answer between them; found
    by bisection, not by looking back over every earlier line and every line between (cubic
    in a note of numbered lines).
    """
    taken = {index for index, _ in candidates}
    answers = [i for i, line in enumerate(lines) if line.strip() and i not in taken]
    by_number: dict[int, list[tuple[int, int]]] = {}  # number -> (line, candidate), in order
    length: list[int] = []
    previous: list[int] = []
    for k, (index, n) in enumerate(candidates):
        before = -1
        if (answer := bisect_left(answers, index) - 1) >= 0:
            # The latest line numbered n - 1 above the last answer line above this one.
            row = by_number.get(n - 1, [])
            if (found := bisect_left(row, (answers[answer], -1)) - 1) >= 0:
                before = row[found][1]
        length.append(length[before] + 1 if before >= 0 else 1)
        previous.append(before)
        by_number.setdefault(n, []).append((index, k))
    k = max(range(len(candidates)), key=length.__getitem__)
    run = []
    while k >= 0:
        run.append(candidates[k][0])
        k = previous[k]
    return run[::-1]


def _opener_question(text: str) -> str:
    return question_text(_strip_marker(text))[0]


def _strip_marker(text: str) -> str:
    text = text.strip()
    text = re.sub(r"^(?:[-*+]|\d{1,3}[.)、．）])[ \t]*(?:\[[ xX]\][ \t]+)?", "", text, count=1)
    return text.strip()


def _unbold(text: str) -> tuple[str, str]:
    """(`Q: …` inside a bold lead, the text after it) or (the line, "")."""
    match = BOLD_LINE.match(text.strip())
    if match and Q_PREFIX.match(match.group(1).strip()):
        return match.group(1).strip(), match.group(2).strip()
    if match and match.group(1).strip().rstrip("：:") in ("Q", "问", "问题", "Question"):
        return f"Q: {match.group(2)}", ""
    return text.strip(), ""


def bold_question(text: str) -> tuple[str, str] | None:
    match = BOLD_LINE.match(text.strip())
    if not match:
        # "**2.1 …？" with its closing ** forgotten still asks in bold.
        lead = text.strip()
        if lead.startswith(("**", "__")) and lead[:2] not in lead[2:]:
            question, says = question_text(lead[2:])
            return (question, "") if says else None
        return None
    inner = match.group(1).strip()
    if re.fullmatch(r"(?:Q|问题?)?\d{1,3}[.)）、．]?", inner) and match.group(2).strip():
        # "**1)** The number of active ads.": a numbered task, its text after the number.
        return match.group(2).strip(), ""
    question, says = question_text(inner)
    if says or (numbering(inner) is not None and asks(question)):
        return question, match.group(2).strip()
    return None


def _bold_task(text: str) -> tuple[str, str] | None:
    """A numbered bold lead and its line ("**1) FizzBuzz.** Print numbers…"): a task, whole."""
    match = BOLD_LINE.match(text.strip())
    if not match or numbering(match.group(1)) is None:
        return None
    lead = question_text(match.group(1))[0]
    return " ".join(part for part in (lead, match.group(2).strip()) if part), ""


def _inline_card(text: str) -> tuple[str, str] | None:
    if "::" not in text or "`" in text or IDENTIFIER_SCOPE.search(text):
        return None
    match = INLINE_CARD.match(_strip_marker(text))
    if not match or "://" in match.group("q") or len(match.group("q")) < 2:
        return None
    return match.group("q").strip(), match.group("a").strip()


def _split_id(text: str) -> tuple[str, str | None]:
    match = re.search(r"[ \t]*\{#([^}\s]*)\}[ \t]*$", text)
    if match:
        return text[: match.start()].strip(), match.group(1)
    return text.strip(), None


def _is_section_line(
    outline: Outline, block: Block, following: Block | None, openers: set[int]
) -> bool:
    """A short line standing alone before a question, in notes without headings (a section)."""
    if outline.headings or following is None or following.kind != "paragraph":
        return False
    if not _short_line(outline, block):
        return False
    first = outline.lines[following.start]
    return bool(Q_PREFIX.match(_unbold(first)[0])) or following.start in openers


def _short_line(outline: Outline, block: Block) -> bool:
    if block.kind != "paragraph" or block.end - block.start != 1:
        return False
    text = outline.lines[block.start].strip()
    return (
        0 < len(text) <= 40
        and not SENTENCE_END.search(text)
        and not any(mark in text for mark in ("$", "[", "|", "://", "`"))
        and not Q_PREFIX.match(text)
        and _line_number(text) is None
    )


def _details_end(lines: list[str], start: int, end: int) -> int:
    depth = 0
    for index in range(start, end):
        depth += len(DETAILS_OPEN.findall(lines[index])) - len(DETAILS_CLOSE.findall(lines[index]))
        if depth <= 0:
            return index + 1
    return end


def _details(lines: list[str], start: int, stop: int) -> tuple[str, Lines]:
    """The summary of a <details> block and its content lines, the wrapper tags removed."""
    text = "\n".join(lines[start:stop])
    summary_match = SUMMARY.search(text)
    summary = TAGS.sub("", summary_match.group(1)).strip() if summary_match else ""
    body: Lines = []
    summary_done = summary_match is None
    for index in range(start, stop):
        line = lines[index]
        if not summary_done:
            if re.search(r"</summary\s*>", line, re.I):
                summary_done = True
                line = re.split(r"</summary\s*>", line, maxsplit=1, flags=re.I)[1]
            else:
                continue
        line = DETAILS_OPEN.sub("", line)
        line = DETAILS_CLOSE.sub("", line)
        body.append((index, line))
    return summary, body


def without_answer_fold(line: str) -> str:
    """A line without a `<details><summary>Answer</summary>` fold: on a card it is shown anyway."""
    if "<details" not in line and "</details" not in line and "<summary" not in line:
        return line
    summary = SUMMARY.search(line)
    if summary and not GENERIC_SUMMARY.match(TAGS.sub("", summary.group(1)).strip()):
        return line
    return SUMMARY.sub("", DETAILS_CLOSE.sub("", DETAILS_OPEN.sub("", line)))


def _last_paragraph(intro: Lines) -> tuple[int, str] | None:
    """The last non-blank intro line, when it asks a question (a question above <details>)."""
    for index, text in reversed(intro):
        if text.strip():
            return (index, text) if question_text(_strip_marker(text))[1] else None
    return None


def _callout(lines: list[str], block: Block, title: str) -> tuple[str, Lines]:
    body = [(i, QUOTE.sub("", lines[i], count=1)) for i in range(block.start + 1, block.end)]
    question = title.strip()
    if not question:
        first = next(((i, t) for i, t in body if t.strip()), None)
        if first is None:
            return "", []
        question = first[1].strip()
        body = [(i, t) for i, t in body if i > first[0]]
    if body and (nested := NESTED_CALLOUT.match(body[0][1])):
        # > [!question] Q / > > [!success] Answer: the inner callout is the answer.
        lead = nested.group(1).strip()
        rest = [(i, QUOTE.sub("", t, count=1)) for i, t in body[1:]]
        body = ([(body[0][0], lead)] if lead and not GENERIC_SUMMARY.match(lead) else []) + rest
    return question, body


def _dedent(outline: Outline, start: int, end: int, indent: int) -> Lines:
    out: Lines = []
    for index in range(start, end):
        text = outline.lines[index]
        width = len(text) - len(text.lstrip(" "))
        out.append((index, text[min(width, indent) :]))
    return out


def _fill_gaps(body: Lines, lines: list[str]) -> Lines:
    """Body lines in order, with the blank lines between two of them restored."""
    if not body:
        return body
    out: Lines = [body[0]]
    for index, text in body[1:]:
        previous = out[-1][0]
        out += [(i, "") for i in range(previous + 1, index) if not lines[i].strip()]
        out.append((index, text))
    return out


def outline_lines(outline: Outline, start: int, end: int) -> Lines:
    return [(i, outline.lines[i]) for i in range(start, end)]
