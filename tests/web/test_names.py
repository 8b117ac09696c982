"""Ratings, flags, queues and modes are named once: templates and scripts take the enums."""

import json
import re
from pathlib import Path

from app.scheduling.cardstate import Mode, Queue, Rating
from app.study.marks import Flag

STATIC = Path(__file__).resolve().parents[2] / "static"


def _names(page: str) -> dict[str, list[object]]:
    found = re.search(r'<script type="application/json" id="qbank-names">(.*?)</script>', page)
    assert found is not None
    return json.loads(found.group(1))


def test_every_page_hands_the_scripts_the_enums(client):
    names = _names(client.get("/").text)
    assert names == {
        "ratings": [1, 2, 3, 4],
        "flags": ["red", "orange", "green", "blue", "pink", "turquoise", "purple"],
        "queues": [queue.value for queue in Queue],
        "modes": [mode.value for mode in Mode],
    }
    assert "practice" in names["queues"]


def test_the_study_page_buttons_come_from_the_enums(client):
    page = client.get("/study", params={"reveal": 1}).text
    ratings = re.findall(
        r'<button type="submit" name="rating" value="(\d)" class="rate (\w+)"', page
    )
    assert ratings == [(str(r.value), r.name.lower()) for r in Rating]
    flags = re.findall(r'class="flag flag-(\w+)" id="action-flag-(\d)"', page)
    # The actions are on the page twice: on the card, and in the template the script paints from.
    assert flags == [(flag.value, str(flag.number)) for flag in Flag] * 2


def test_no_script_keeps_its_own_list_of_rating_keys():
    for script in ("app.js", "study.js"):
        text = (STATIC / script).read_text(encoding="utf-8")
        assert '"1", "2", "3", "4"' not in text
        assert "./names.js" in text
