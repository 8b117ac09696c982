"""The bundled bank (content/ at the repository root) as the tests read it."""

from datetime import UTC, datetime
from pathlib import Path

from app.content.notes.parse import parse_deck
from app.content.notes.parsed import ParsedDeck

CONTENT = Path(__file__).resolve().parents[2] / "content"
# The moment the bundled-bank tests study at.
NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
# Each follow-up's answer is a short spoken reply: at most this many characters.
MAX_FOLLOWUP_ANSWER_CHARS = 300


def bundled_deck(name: str) -> ParsedDeck:
    path = CONTENT / "decks" / f"{name}.md"
    deck, errors = parse_deck(str(path), path.read_text(encoding="utf-8"))
    assert not errors, errors
    assert deck is not None
    return deck
