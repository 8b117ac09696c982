"""Cloze and reversed cards through HTTP: their kind and forms in the API, the study and card
pages, and the way back to the note at /notes/<path>, which serves nothing outside the folder."""

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings, editor_template
from app.infra.models import Card, MockSession
from app.main import create_app
from tests.support.cloze_notes import NOTES

# Kinds and sources are columns read through both databases.
pytestmark = pytest.mark.storage


@pytest.fixture
def bank_dir(write_content: Callable[[dict[str, str]], Path]) -> Path:
    return write_content(NOTES)


def cards(client: TestClient) -> dict[str, dict]:
    """Every card of the bank by its question, as /api/cards/{id} gives it."""
    found = {}
    for deck in ("gpu", "memory"):
        page = client.get(f"/decks/{deck}").text
        for card_id in sorted({part.split('"')[0] for part in page.split('href="/cards/')[1:]}):
            card = client.get(f"/api/cards/{card_id}").json()
            found[card["question"]] = card
    return found


def test_study_next_and_card_give_kind_forms_and_source(client: TestClient) -> None:
    first = client.get("/api/study/next").json()
    assert first["kind"] == "cloze"
    assert first["source_path"] == "gpu.md" and first["source_line"] == 5
    assert '<span class="cloze-blank">[…]</span>' in first["front_html"]
    assert '<span class="cloze-answer">132</span>' in first["answer_html"]
    assert "132" not in first["front_html"] and "50 MB" in first["front_html"]

    by_question = cards(client)
    assert {card["kind"] for card in by_question.values()} == {"cloze", "reversed", "basic"}
    ridge = next(c for q, c in by_question.items() if q.startswith("The ridge point"))
    assert "fbox" in ridge["front_html"] and "fbox" in ridge["answer_html"]
    assert by_question["roofline"]["kind"] == "reversed"
    tiling = by_question["Why does tiling help?"]
    assert (
        tiling["kind"] == "basic"
        and tiling["front_html"] == ""
        and "{{" not in tiling["answer_html"]
    )
    assert tiling["source_path"] == "gpu.md" and tiling["source_line"] == 18


def test_study_page_shows_the_front_and_the_note_line(client: TestClient) -> None:
    page = client.get("/study").text
    assert 'data-kind="cloze"' in page
    front = '<div class="prose cloze-front" data-slot="front_html"><p>The H100 SXM has '
    front += '<span class="cloze-blank">'
    assert front in page
    assert 'href="/notes/gpu.md?line=5#L5"' in page and ">gpu.md:5</a>" in page
    revealed = client.get("/study?reveal=1").text
    assert '<span class="cloze-answer">132</span>' in revealed


def test_search_finds_cloze_text(client: TestClient) -> None:
    page = client.get("/search", params={"q": "NVLink"}).text
    assert "<mark>NVLink</mark> 4: 900 GB/s" in page and 'href="/cards/c-' in page


def test_the_note_page_marks_the_card_lines(client: TestClient) -> None:
    page = client.get("/notes/gpu.md", params={"line": 18}).text
    assert '<div class="note-block hit" id="L18" data-lines="18-18">' in page
    assert 'id="L5"' in page and "{{c1::" not in page and "132" in page
    assert "Edit" not in page  # no editor configured


@pytest.mark.parametrize(
    "path",
    [
        "/notes/../outside.md",
        "/notes/%2e%2e/outside.md",
        "/notes/%2E%2E%2Foutside.md",
        "/notes/sub/../../outside.md",
        "/notes//etc/passwd",
        "/notes/%2Fetc%2Fpasswd",
        "/notes/leak.md",
        "/notes/secret.txt.bak",
        "/notes/missing.md",
    ],
)
def test_nothing_outside_the_notes_folder_is_served(
    client: TestClient, bank_dir: Path, path: str
) -> None:
    (bank_dir.parent / "outside.md").write_text("secret outside\n", encoding="utf-8")
    (bank_dir / "secret.txt.bak").write_text("secret backup\n", encoding="utf-8")
    leak = bank_dir / "leak.md"
    if not leak.is_symlink():
        os.symlink(bank_dir.parent / "outside.md", leak)
    response = client.get(path)
    assert response.status_code == 404
    assert "secret" not in response.text


def test_the_editor_link_is_a_setting_off_by_default() -> None:
    assert Settings(_env_file=None).editor_url is None  # type: ignore[call-arg]
    assert editor_template("obsidian://open?vault={vault}&file={path}")
    for bad in ("javascript:alert(1)", "vscode://file/{home}", "no-scheme"):
        with pytest.raises(ValueError, match="editor URL"):
            editor_template(bad)


def test_practice_includes_cloze_cards(client: TestClient) -> None:
    started = client.post("/practice", data={"deck": "gpu", "order": "content", "seconds": "0"})
    assert started.status_code == 303
    page = client.get(started.headers["location"]).text
    assert 'data-kind="cloze"' in page
    front = '<div class="prose cloze-front"><p>The H100 SXM has <span class="cloze-blank">'
    assert front in page


def test_mock_interviews_ask_spoken_questions_only(client: TestClient, bank) -> None:
    assert "cloze cards are left out" in client.get("/interview/mock").text
    started = client.post("/interview/mock", data={"count": "20", "deck": "gpu"})
    assert started.status_code == 303
    mock_id = int(started.headers["location"].rsplit("/", 1)[1])
    with bank.database.session() as session:
        run = session.get(MockSession, mock_id)
        assert run is not None
        kinds = {session.get(Card, card_id).kind for card_id in run.card_ids}
    assert len(run.card_ids) == 3 and kinds == {"basic", "reversed"}


def test_statistics_count_cards_by_kind(client: TestClient) -> None:
    assert client.get("/api/stats").json()["kinds"] == {"basic": 1, "cloze": 9, "reversed": 4}
    assert client.get("/api/stats", params={"deck": "memory"}).json()["kinds"] == {
        "basic": 0,
        "cloze": 2,
        "reversed": 2,
    }
    page = client.get("/stats").text
    assert '<tr><th scope="row">Cloze</th><td>9</td></tr>' in page


def test_a_link_by_name_from_a_note_page_finds_the_note(client: TestClient) -> None:
    found = client.get("/notes/sub/roofline")
    assert found.status_code == 303
    assert found.headers["location"] == "/topics/go/roofline"


def test_local_mode_offers_an_edit_link_when_set(app, bank_dir: Path) -> None:
    settings = app.state.settings.model_copy(
        update={"editor_url": "vscode://file/{abspath}:{line}"}
    )
    edited = create_app(settings)
    with TestClient(edited, headers={"Accept-Language": "en"}) as client:
        page = client.get("/notes/gpu.md", params={"line": 7}).text
        expected = f"vscode://file/{(bank_dir / 'gpu.md').resolve().as_posix()}:7"
        assert f'href="{expected}"' in page and ">Edit</a>" in page
    edited.state.database.dispose()
