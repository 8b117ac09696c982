"""Reading a region's lines: markers, numbering, folds and dedenting, shared by recognisers."""

import re
from itertools import pairwise

from app.content.notes.outline import Block, Outline
from app.content.notes.wording import (
    BOLD_LINE,
    DETAILS_CLOSE,
    DETAILS_OPEN,
    IDENTIFIER_SCOPE,
    INLINE_CARD,
    NESTED_CALLOUT,
    Q_PREFIX,
    QUOTE,
    SENTENCE_END,
    SUMMARY,
    TAGS,
    Lines,
    asks,
    is_fold_label,
    numbering,
    question_text,
)


def numbered_openers(outline: Outline, blocks: list[Block]) -> set[int]:
    """Lines that open a card by their number: a run 1, 2, 3… with an answer between each."""
    candidates, unasked = _numbered_candidates(outline.lines, blocks)
    if len(candidates) < 2:
        return set()
    longest = _longest_run(outline.lines, candidates)
    if len(longest) < 2:
        return set()
    texts = [outline.lines[i] for i in longest]
    asking = sum(asks(strip_marker(t)) for t in texts)
    if outline.headings:
        # Under headings, a numbered run is a list of points unless its lines ask.
        if 2 * asking < len(texts):
            return set()
    elif not (len(longest) >= 3 or asking or _compact(texts)):
        return set()
    return _with_gaps(longest, candidates, unasked) | _asked_outright(outline, longest, candidates)


def _compact(texts: list[str]) -> bool:
    return all(re.match(r"^\d{1,3}[.、．)）](?=\S)", t) for t in texts)


def _asked_outright(
    outline: Outline, run: list[int], candidates: list[tuple[int, int]]
) -> set[int]:
    """After a run of questions that end in `?`, the numbered lines that do too, however they
    are numbered: `1.`, `2.`, then `7. **What is a subshell?**` is the next question, not part
    of 2's answer."""
    says = [question_text(strip_marker(outline.lines[i]))[1] for i in run]
    if 2 * sum(says) < len(says):
        return set()
    return {
        index
        for index, _ in candidates
        if index > run[0] and question_text(strip_marker(outline.lines[index]))[1]
    }


def _with_gaps(
    run: list[int], candidates: list[tuple[int, int]], unasked: list[tuple[int, int]]
) -> set[int]:
    """The run and the list items numbered in its gaps: `13. CNN网络特点` between questions 12
    and 14 is the question the author numbered there, worded as a topic, not 12's answer."""
    number = dict(candidates)
    openers = set(run)
    after = {number[a]: (a, b) for a, b in pairwise(run)}
    for index, n in unasked:
        if (pair := after.get(n - 1)) and pair[0] < index < pair[1] and number[pair[1]] == n + 1:
            openers.add(index)
    return openers


def _numbered_candidates(
    lines: list[str], blocks: list[Block]
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(line, number) of each line that starts with a number and could open a card, and of the
    items of numbered lists left out because they do not ask."""
    candidates: list[tuple[int, int]] = []
    unasked: list[tuple[int, int]] = []
    for block in blocks:
        # A numbered line right under a list item is that item's lazy continuation to
        # markdown-it, but to the author it is the next question.
        if block.kind not in ("paragraph", "bullet_list", "ordered_list"):
            continue
        # Items of one Markdown list are a list, unless each asks something.
        items = {item.start for item in block.items}
        listed = items if len(block.items) > 1 else set()
        for index in range(block.start, block.end):
            # An indented number is a point inside an answer, unless it is one of the block's
            # own items, which Markdown lets stand up to three spaces in (`   2.  ### …`).
            indented = lines[index][:1].isspace()
            if (indented and index not in items) or not (n := line_number(lines[index].lstrip())):
                continue
            if index in listed and not asks(strip_marker(lines[index])):
                unasked.append((index, n))
                continue
            candidates.append((index, n))
    return candidates, unasked


def _longest_run(lines: list[str], candidates: list[tuple[int, int]]) -> list[int]:
    """The longest chain of candidates numbered n, n+1, … with an answer between each two.

    One number may be skipped (1, 2, 4), and one written twice (289, 290, 290, 291): a list
    that lost a question, or numbered one twice, is still one list. A run of `1.` is Markdown's
    own numbering, left to the list's rules.

    Linear: each candidate extends the chain of the latest one numbered one less, and whether
    text stands between two lines is read from running counts.
    """
    taken = {index for index, _ in candidates}
    answered = [0]  # answered[i]: lines before i with text that opens no card
    for index, text in enumerate(lines):
        answered.append(answered[-1] + (bool(text.strip()) and index not in taken))
    latest: dict[int, int] = {}  # number → position in candidates of the latest with it
    length = [1] * len(candidates)
    before = [-1] * len(candidates)
    for k, (index, n) in enumerate(candidates):
        # The one before; where the author numbered two alike, the first of them; where they
        # skipped a number, the one before that.
        again = latest.get(n) if n > 1 else None
        options = [
            j
            for j in (latest.get(n - 1), again, latest.get(n - 2))
            if j is not None and answered[index] > answered[candidates[j][0] + 1]
        ]
        if options:  # the longest chain it can extend, the one before on a tie
            j = max(options, key=length.__getitem__)
            length[k], before[k] = length[j] + 1, j
        latest[n] = k
    k = max(range(len(candidates)), key=length.__getitem__)
    chain: list[int] = []
    while k >= 0:
        chain.append(candidates[k][0])
        k = before[k]
    return chain[::-1]


def line_number(text: str) -> int | None:
    match = re.match(r"^(\d{1,3})[.、．)）]", text)
    if match and not re.match(r"^\d{1,3}[.．]\d", text):
        return int(match.group(1))
    return None


def opener_question(text: str) -> str:
    return question_text(strip_marker(text))[0]


def strip_marker(text: str) -> str:
    text = text.strip()
    text = re.sub(r"^(?:[-*+]|\d{1,3}[.)、．）])[ \t]*(?:\[[ xX]\][ \t]+)?", "", text, count=1)
    return text.strip()


def unbold(text: str) -> tuple[str, str]:
    """(`Q: …` inside a bold lead, the text after it) or (the line, "")."""
    match = BOLD_LINE.match(text.strip())
    # `**Q:** …` bolds the marker alone, colon inside: the question is the text after it.
    if match and match.group(1).strip().rstrip("：:") in ("Q", "问", "问题", "Question"):
        return f"Q: {match.group(2)}", ""
    if match and (marker := Q_PREFIX.match(match.group(1).strip())):
        if not marker.group(1).strip():  # `**Question 3:** …`: the marker alone in bold
            return f"Q: {match.group(2)}", ""
        return match.group(1).strip(), match.group(2).strip()
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
    if (
        re.fullmatch(r"(?:Q|问题?)?\d{1,3}(?:\.\d{1,3})*[.)）、．]?", inner)
        and match.group(2).strip()
    ):
        # "**1)** The number of active ads.", "**1.1** 一个袋子…": a numbered task, its text
        # after the number (the whole number, not `1.` of `1.1`; `**2**.` puts the dot after).
        return match.group(2).strip().lstrip(".)）、．").strip(), ""
    rest = match.group(2).strip()
    if rest[:1] in ("?", "？"):
        # "**1、是否可以…得到答案**？如果可以…": the mark the bold left outside is the question's.
        inner, rest = inner + rest[0], rest[1:].strip()
    question, says = question_text(inner)
    if says or (numbering(inner) is not None and asks(question)):
        return question, rest
    return None


def bold_task(text: str) -> tuple[str, str] | None:
    """A numbered bold lead and its line ("**1) FizzBuzz.** Print numbers…"): a task, whole."""
    match = BOLD_LINE.match(text.strip())
    if not match or numbering(match.group(1)) is None:
        return None
    lead = question_text(match.group(1))[0]
    return " ".join(part for part in (lead, match.group(2).strip()) if part), ""


def inline_card(text: str) -> tuple[str, str] | None:
    if "::" not in text or "`" in text or IDENTIFIER_SCOPE.search(text):
        return None
    match = INLINE_CARD.match(strip_marker(text))
    if not match or "://" in match.group("q") or len(match.group("q")) < 2:
        return None
    return match.group("q").strip(), match.group("a").strip()


def split_id(text: str) -> tuple[str, str | None]:
    match = re.search(r"[ \t]*\{#([^}\s]*)\}[ \t]*$", text)
    if match:
        return text[: match.start()].strip(), match.group(1)
    return text.strip(), None


def short_line(outline: Outline, block: Block) -> bool:
    if block.kind != "paragraph" or block.end - block.start != 1:
        return False
    text = outline.texts.get(block.start, "").strip()
    return (
        0 < len(text) <= 40
        and not SENTENCE_END.search(text)
        and not any(mark in text for mark in ("$", "[", "|", "://", "`"))
        and not Q_PREFIX.match(text)
        and line_number(text) is None
    )


def details_end(outline: Outline, start: int, end: int) -> int:
    """The line after the `</details>` closing the fold opened on `start`.

    Tags are counted in the HTML and paragraphs the parse found, not in code or math: a
    `<details>` quoted in a code block inside the fold neither opens nor closes it.
    """
    depth = 0
    for index in range(start, end):
        text = outline.texts.get(index, "")
        depth += len(DETAILS_OPEN.findall(text)) - len(DETAILS_CLOSE.findall(text))
        if depth <= 0:
            return index + 1
    return end


def details(outline: Outline, start: int, stop: int) -> tuple[str, Lines]:
    """The summary of a <details> block and its content lines, the wrapper tags removed.

    The summary is read from the HTML and text the parse found (a `<summary>` quoted in code is
    none); the content lines are the answer as written.
    """
    lines = outline.lines
    text = "\n".join(outline.texts.get(index, "") for index in range(start, stop))
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


def answer_fold(outline: Outline, start: int, stop: int) -> Block | None:
    """The block of lines `start`…`stop` that opens their first fold, when its summary labels
    it as the answer (`<details><summary>Show Answer</summary>`)."""
    for block in outline.blocks_between(start, stop):
        if block.kind == "html_block" and DETAILS_OPEN.search(outline.texts.get(block.start, "")):
            summary, _ = details(outline, block.start, details_end(outline, block.start, stop))
            return block if is_fold_label(summary) else None
    return None


def without_answer_fold(line: str) -> str:
    """A line without a `<details><summary>Answer</summary>` fold: on a card it is shown anyway."""
    if "<details" not in line and "</details" not in line and "<summary" not in line:
        return line
    summary = SUMMARY.search(line)
    if summary and not is_fold_label(TAGS.sub("", summary.group(1))):
        return line
    return SUMMARY.sub("", DETAILS_CLOSE.sub("", DETAILS_OPEN.sub("", line)))


def last_paragraph(intro: Lines) -> tuple[int, str] | None:
    """The last non-blank intro line, when it asks a question (a question above <details>)."""
    for index, text in reversed(intro):
        if text.strip():
            return (index, text) if question_text(strip_marker(text))[1] else None
    return None


def callout(lines: list[str], block: Block, title: str) -> tuple[str, Lines]:
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
        body = ([(body[0][0], lead)] if lead and not is_fold_label(lead) else []) + rest
    return question, body


def dedent(outline: Outline, start: int, end: int, indent: int) -> Lines:
    out: Lines = []
    for index in range(start, end):
        text = outline.lines[index]
        width = len(text) - len(text.lstrip(" "))
        out.append((index, text[min(width, indent) :]))
    return out


def fill_gaps(body: Lines, lines: list[str]) -> Lines:
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
