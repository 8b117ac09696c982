"""Recognisers of the text no heading card holds, as plug-ins in one ordered registry.

Each syntax is one module here with one `Recogniser`: a `Syntax` name and `claim(unit,
region)`, which takes the unit (a top-level block, a list item or a paragraph's line, as the
recogniser's `units` say) when it is written that way and returns the card it opened, `TAKEN`
when it took the unit without a card (a title, a section line), or None to leave it to the next
recogniser. The first to claim a unit has it; a unit nobody claims goes to the card being
written, or to the note's introduction. Adding a syntax is one module, one line in `REGISTRY`
and one fixture folder in tests/fixtures/notes/<syntax>/.
"""

from app.content.notes.admonitions import is_answer_fold, unfolded
from app.content.notes.outline import Block, Outline
from app.content.notes.recognisers import (
    bold_question,
    callout,
    contents,
    details,
    inline_separator,
    list_question,
    numbered_line,
    qa_lines,
    question_table,
    section_line,
    title_line,
)
from app.content.notes.recognisers.base import TAKEN, Recogniser, Region, Unit
from app.content.notes.recognisers.lines import fill_gaps, numbered_openers
from app.content.notes.wording import Recognised

# In the order they are asked: the first that claims a unit has it.
REGISTRY: tuple[Recogniser, ...] = (
    title_line.TitleLine(),
    contents.Contents(),
    details.Details(),
    callout.Callout(),
    question_table.QuestionTable(),
    section_line.SectionLine(),
    numbered_line.NumberedLine(),
    list_question.ListQuestion(),
    inline_separator.InlineSeparator(),
    qa_lines.QaLines(),
    bold_question.BoldQuestion(),
)


def recognise_region(outline: Outline, start: int, end: int, section: str) -> Recognised:
    """Cards written without headings in lines `start`…`end` of the note."""
    blocks = outline.blocks_between(start, end)
    region = Region(outline, start, end, section, blocks, numbered_openers(outline, blocks))
    for position, block in enumerate(blocks):
        if block.start < region.skip_until:
            _rest_of_html(block, region, position)
            continue
        region.position = position
        if _claim(Unit("block", block.start, block.end, block), region):
            continue
        if block.kind in ("bullet_list", "ordered_list"):
            for item in block.items:
                unit = Unit("item", item.start, item.end, block, item)
                # An item with nothing after its marker (`15.` at the end of a list of
                # questions) says nothing, and would make the answer before it look written.
                if not _claim(unit, region) and not _empty(outline, unit):
                    _lines(unit, region, paragraph=False)
        elif block.kind == "paragraph":
            _lines(Unit("block", block.start, block.end, block), region, paragraph=True)
        elif is_answer_fold(block):
            for index, text in unfolded(outline, block):
                region.take(index, text)
        else:
            region.take_range(block.start, block.end)
    # Blank lines between blocks belong with the text around them.
    for card in region.out.cards:
        card.body = fill_gaps(card.body, outline.lines)
    return region.out


def _rest_of_html(block: Block, region: Region, position: int) -> None:
    """The part of an HTML block after a fold that closed inside it.

    `</details>` with the next `<details>` on the line after it is one HTML block to the parse
    (no blank line ends it), so the next fold opens part-way through that block.
    """
    start = region.skip_until
    if block.kind != "html_block" or start >= block.end:
        return
    region.position = position
    if not _claim(Unit("block", start, block.end, block), region):
        region.take_range(start, block.end)


def _claim(unit: Unit, region: Region) -> bool:
    for recogniser in REGISTRY:
        if unit.kind in recogniser.units and recogniser.claim(unit, region) is not None:
            return True
    return False


def _empty(outline: Outline, unit: Unit) -> bool:
    """Whether the parse found nothing in an item: no text, no code, math or HTML."""
    lines = range(unit.start, unit.end)
    return not any(outline.texts.get(i, "").strip() or i in outline.protected for i in lines)


def _lines(unit: Unit, region: Region, *, paragraph: bool) -> None:
    for index in range(unit.start, unit.end):
        line = Unit("line", index, index + 1, unit.block, unit.item, paragraph=paragraph)
        if not _claim(line, region):
            region.take(index)


__all__ = ["REGISTRY", "TAKEN", "Recogniser", "Region", "Unit", "recognise_region"]
