"""A note's page in team mode: members only, and no "Edit" link into anyone's own editor."""

from fastapi import FastAPI


def test_note_pages_are_for_signed_in_members(browser) -> None:
    nobody = browser()
    refused = nobody.get("/notes/decks/a-gpu.md")
    assert refused.status_code in (303, 401)
    assert "kernel" not in refused.text.lower()
    member = browser("member")
    page = member.get("/notes/decks/a-gpu.md")
    assert page.status_code == 200
    assert "What is a kernel?" in page.text
    assert member.get("/notes/decks/missing.md").status_code == 404


def test_team_mode_offers_no_editor_link(make_app, browser) -> None:
    app: FastAPI = make_app(editor_url="vscode://file/{abspath}:{line}")
    member = browser("member", app=app)
    page = member.get("/notes/decks/a-gpu.md", params={"line": 3})
    assert page.status_code == 200
    assert "vscode://" not in page.text
