"""The labels that open a card's blocks (`**面试回答。**`, `Answer:`); answers showing nothing."""

import re

from app.content.notes.frontmatter import label_key

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

# What shows nothing on a card: tags (`<hr />`, `<br>`), rules, non-breaking spaces.
_RULE = re.compile(r"^[ \t]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$", re.MULTILINE)


def shows_nothing(text: str) -> bool:
    """Whether an answer holds nothing to read: only rules, tags and blank space."""
    text = _TAGS.sub("", text).replace("&nbsp;", " ")
    return not _RULE.sub("", text).strip()
