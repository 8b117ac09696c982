"""The labels that open a card's blocks (`**面试回答。**`, `Answer:`); answers showing nothing."""

import bisect
import re
import unicodedata
from collections.abc import Callable

from app.content.notes.frontmatter import label_key
from app.content.notes.spans import Groups

_LABEL = re.compile(r"^\*\*(.+?)\*\*[ \t]*[。.:：]?[ \t]*(.*)$")
# A label without bold ("面试回答。 …", "Answer: …") must end in punctuation.
_PLAIN_LABEL = re.compile(r"^([^\s*#>|`$-][^。.:：*]{0,15}?)[ \t]*([。.:：])[ \t]*(.*)$")
# An HTML tag, not an autolink (`<https://…>`, `<a@b.c>`), whose name runs to a space, / or >.
_TAGS = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:[\s/][^<>]*)?>")


def block_label(line: str, labels: dict[str, str], current: str) -> tuple[str, str] | None:
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
    key = label_key(match.group(1))
    block = labels.get(key)
    if block is None and current == "answer" and (numbered := _NUMBERED.match(key)):
        # `A3. …` after `Q3. …`: the answer's label with its question's number.
        block = "answer" if labels.get(numbered.group(1)) == "answer" else None
    if block is None or (match.group(2) in ":：" and not (block == current == "answer")):
        return None
    return block, match.group(3)


_NUMBERED = re.compile(r"^(\D+?)[ \t]*\d{1,3}$")
# A plain one-letter label (`A.`, `a:`), which a list's first item can also be; `a.` opening a
# line, and the `b.` that makes it a list: later in the line or opening the next.
_LETTER_LABEL = re.compile(r"^[ \t]*[Aa][ \t]*[.:：]")
_LIST_A = re.compile(r"^[ \t]*a\.")
_LIST_B = re.compile(r"(?:^|\s)b\.")


def body_label(
    body: list[tuple[int, str]], at: int, labels: dict[str, str], current: str, *, answered: bool
) -> tuple[str, str] | None:
    """The label that opens a block on line `at` of a card's `body`, if it labels one there;
    `answered` when the answer already holds text."""
    text = body[at][1]
    label = block_label(text, labels, current)
    if label is None or label[0] != "answer":
        return label

    def next_line() -> str:
        return next((line.lstrip() for _, line in body[at + 1 :] if line.strip()), "")

    # `a. collect the data` well into an answer, or over `b. …`, is the answer's own list.
    return label if labels_answer(text, answered, next_line) else None


def labels_answer(line: str, answered: bool, next_line: Callable[[], str]) -> bool:
    """Whether an answer's label on `line` labels the answer. A one-letter label counts only at
    the answer's start (nothing of it before), and never as a lower-case `a.` with a `b.` after
    it (`a. …` / `b. …`): those are the answer's own list. Word and bold labels always count."""
    if not _LETTER_LABEL.match(line):
        return True
    if answered:
        return False
    return not (_LIST_A.match(line) and (_LIST_B.search(line) or _LIST_B.match(next_line())))


# What shows nothing on a card: tags (`<hr />`, `<br>`), rules, non-breaking spaces.
_RULE = re.compile(r"^[ \t]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$", re.MULTILINE)


def shows_nothing(text: str) -> bool:
    """Whether an answer holds nothing to read: only rules, tags, punctuation and blank space
    (`。` left after a bold lead that took the whole sentence), a placeholder (`To Do`), or the
    lead-in of the next group of questions (`c语言：` in an interview log that answers none)."""
    text = _RULE.sub("", _TAGS.sub("", text).replace("&nbsp;", " "))
    shown = " ".join(text.split())
    if shown.casefold().strip(".。…!！*_ ") in _PLACEHOLDERS or _LEAD_IN.fullmatch(shown):
        return True
    return not any(unicodedata.category(char)[0] not in "PZC" for char in text)


# A few words and a colon, alone: what the questions after it are about (`java：`).
_LEAD_IN = re.compile(r"[^\s:：][^:：]{0,15}[:：]")

# An answer the writer has yet to write.
_PLACEHOLDERS = frozenset(
    {"todo", "to do", "to-do", "tbd", "待补充", "待完善", "待更新", "待续", "未完待续", "暂无"}
)


def without_closing_rules(
    entries: list[tuple[int, str]], groups: Groups | None
) -> list[tuple[int, str]]:
    """An answer's (line, text) entries less the rules that end it.

    A `---` after the last paragraph of an answer, before the next question, separates one card
    from the next; it is not the answer's. Only a rule the parse reads as one is dropped (with
    no parse, one after a blank line), never a setext underline.
    """
    stop = len(entries)
    while stop and not entries[stop - 1][1].strip():
        stop -= 1
    end = stop
    while stop and _RULE.fullmatch(entries[stop - 1][1]) and _breaks(entries, stop - 1, groups):
        stop -= 1
        while stop and not entries[stop - 1][1].strip():
            stop -= 1
    return entries[:stop] if stop < end else entries


def _breaks(entries: list[tuple[int, str]], at: int, groups: Groups | None) -> bool:
    """Whether the rule line `entries[at]` is a thematic break, not a heading's underline."""
    line = entries[at][0]
    if groups is None:
        return at == 0 or not entries[at - 1][1].strip() or entries[at - 1][0] < line - 1
    found = bisect.bisect_left(groups.groups, line, key=lambda group: group.first)
    return (
        found < len(groups.groups)
        and groups.groups[found].first == line
        and (groups.groups[found].kind == "hr")
    )
