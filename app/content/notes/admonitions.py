"""MkDocs admonitions that fold an answer: `??? success "View Answer"` over an indented body.

The title of such a fold labels it like a `<details>` summary ("View Answer", "答案"): on a card
the answer is shown anyway, so the title is dropped and the body, dedented, is the answer. An
admonition titled otherwise (`!!! tip "Interviewer's Insight"`) is part of the answer as written.
"""

from app.content.notes.outline import Block, Outline
from app.content.notes.wording import Lines, is_fold_label


def is_answer_fold(block: Block) -> bool:
    return block.kind == "admonition" and is_fold_label(block.title)


def unfolded(outline: Outline, block: Block) -> Lines:
    """An answer fold's body, dedented to its marker's column; other blocks as written."""
    if not is_answer_fold(block):
        return [(i, outline.lines[i]) for i in range(block.start, block.end)]
    out: Lines = []
    for index in range(block.start + 1, block.end):
        text = outline.lines[index]
        width = len(text) - len(text.lstrip(" "))
        out.append((index, text[min(width, block.indent) :]))
    return out


def answer_lines(outline: Outline, start: int, stop: int) -> Lines:
    """Lines `start`…`stop` with each answer fold among them opened."""
    out: Lines = []
    at = start
    for block in outline.blocks_between(start, stop):
        if not is_answer_fold(block):
            continue
        out += [(i, outline.lines[i]) for i in range(at, block.start)]
        out += unfolded(outline, block)
        at = block.end
    return out + [(i, outline.lines[i]) for i in range(at, stop)]


def answered_by_fold(outline: Outline, start: int, stop: int) -> bool:
    """Whether lines `start`…`stop` hold an answer fold (the heading above them is a question)."""
    return any(is_answer_fold(block) for block in outline.blocks_between(start, stop))
