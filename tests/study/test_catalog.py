"""Deck and tag summaries built from per-section progress."""

from app.infra.models import Deck
from app.study.catalog import DeckSummary, Progress, tag_summaries


def test_a_tag_counts_the_cards_of_its_decks_and_of_sections_named_like_it():
    kernels = DeckSummary(
        Deck(slug="k", title="K", path="k.md", tags=["gpu", "kernels"]),
        Progress(total=5, seen=1),
        {"basics": Progress(total=3, seen=1), "fusion": Progress(total=2)},
    )
    notes = DeckSummary(
        Deck(slug="n", title="N", path="n.md", tags=["Notes"]),
        Progress(total=6, seen=2, due=1),
        {"kernels": Progress(total=4, seen=2, due=1), "other": Progress(total=2)},
    )
    tags = {s.tag: s.progress for s in tag_summaries([kernels, notes])}
    assert list(tags) == ["gpu", "kernels", "Notes"]  # sorted regardless of case
    assert tags["gpu"] == Progress(total=5, seen=1)
    # Cards carry their section's name as a tag: notes' "kernels" section is in #kernels.
    assert tags["kernels"] == Progress(total=9, seen=3, due=1)
    assert tags["Notes"] == Progress(total=6, seen=2, due=1)
    assert tag_summaries([]) == []
