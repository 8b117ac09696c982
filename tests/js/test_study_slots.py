"""The study client finds every part of a card it fills by its `data-slot`, and each slot exists.

static/study-paint.js fills the server's own partials (templates/study.html's card template);
a part found by a CSS class would break silently when a partial's styling changes.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAINT = (ROOT / "static/study-paint.js").read_text(encoding="utf-8")
PARTIALS = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "templates").glob("*.html"))


def named_slots() -> set[str]:
    """The slot names the painter asks for: `slot(root, "name")` and list models by slot."""
    asked = set(re.findall(r'slot\([^,()]+(?:\([^()]*\))?, "([\w-]+)"\)', PAINT))
    asked |= set(re.findall(r'model\("([\w-]+)"\)', PAINT))
    kinds = re.search(r"const kind = (.*);", PAINT)
    assert kinds is not None
    return asked | set(re.findall(r'"(link-[\w-]+)"', kinds[1]))


def test_every_slot_the_painter_fills_is_in_the_partials() -> None:
    asked = named_slots()
    assert {"meta", "question_html", "answer_html", "followup-answer", "link-topic"} <= asked
    given = set(re.findall(r'data-slot="([\w-]+)"', PARTIALS))
    assert asked - given == set()
    # Names built from a card field: followups_html and pitfalls_html, in their boxes.
    assert {"followups", "followups_html", "pitfalls", "pitfalls_html"} <= given


def test_no_part_is_found_by_its_class() -> None:
    selectors = re.findall(r"querySelector(?:All)?\(([^)]*)\)", PAINT)
    assert selectors, "the check sees the painter's look-ups"
    literals = [text for s in selectors for text in re.findall(r"\"([^\"]*)\"|'([^']*)'", s)]
    by_class = [text for pair in literals for text in pair if re.search(r"\.[a-z]", text)]
    assert by_class == []
