"""The mock interview client finds every part it fills by its `data-slot`, and each slot exists.

static/interview-paint.js fills and reads the server's own pages (templates/mock.html and the
questions of templates/_mock_question.html); static/interview-state.js touches no page at all.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "static"
PAINT = (STATIC / "interview-paint.js").read_text(encoding="utf-8")
ENTRY = (STATIC / "interview.js").read_text(encoding="utf-8")
STATE = (STATIC / "interview-state.js").read_text(encoding="utf-8")
PAGES = "".join(
    (ROOT / "templates" / name).read_text(encoding="utf-8")
    for name in ("mock.html", "_mock_question.html")
)


def test_every_slot_the_painter_uses_is_on_the_page() -> None:
    asked = set(re.findall(r'slots?\([^,()]+, "([\w-]+)"\)', PAINT))
    asked |= set(re.findall(r'data-slot="([\w-]+)"', ENTRY))
    assert {"clock", "question", "phase", "phase-next", "answer-form", "record"} <= asked
    given = set(re.findall(r'data-slot="([\w-]+)"', PAGES))
    assert asked - given == set()


def test_no_part_is_found_by_its_class_or_id() -> None:
    selectors = re.findall(
        r"querySelector(?:All)?\(([^)]*)\)|getElementById\(([^)]*)\)", PAINT + ENTRY
    )
    assert selectors, "the check sees the client's look-ups"
    literals = re.findall(r"\"([^\"]*)\"|'([^']*)'", " ".join(a + b for a, b in selectors))
    found = [text for pair in literals for text in pair if text]
    # The page's state document is the one part found by its id: it is read, never filled.
    assert [text for text in found if re.search(r"[.#][a-z]", text)] == []
    assert "mock-state" in found


def test_the_state_touches_no_page() -> None:
    assert re.search(r"\b(document|window|location|querySelector)\b", STATE) is None
