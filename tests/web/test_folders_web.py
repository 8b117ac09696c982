"""Folders of notes on the home page, as study, practice and mock interview scopes, and links."""

import re
from datetime import timedelta
from pathlib import Path

import pytest

from tests.support.web_bank import START

# The folder scope is a prefix compared in SQL: both databases.
pytestmark = pytest.mark.storage

DECKS = {
    "后端/网络/tcp.md": "# TCP\n\n## What is a TCP handshake?\n\nSYN, SYN-ACK, ACK.\n",
    "后端/网络/深入/quic.md": "# QUIC\n\n## Why QUIC over UDP?\n\nNo head-of-line blocking.\n",
    "后端/db.md": (
        "# 数据库\n\n## 什么是索引？\n\n一种查找结构。\n\n"
        "## 1. 为什么 B+ 树适合磁盘？\n\n扇出大。\n"
    ),
    "a_b/x.md": "# Underscore\n\n## Underscore folder?\n\nYes.\n",
    "axb/y.md": "# Lookalike\n\n## Looks like a_b?\n\nNo.\n",
    "index.md": "# Index\n\nSee [[tcp]] and [[db#为什么 B+ 树适合磁盘？]].\n",
}


@pytest.fixture
def bank_dir(write_content) -> Path:
    return write_content(DECKS)


def get(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.text
    return response.text


def folder_rows(page: str) -> list[str]:
    return re.findall(r'<li class="folder-row" data-folder="([^"]+)">', page)


def row(page: str, folder: str) -> str:
    start = page.index(f'data-folder="{folder}"')
    return page[start : page.index("</li>", start)]


def test_home_shows_the_top_folders_with_counts_and_each_opens_on_its_own_page(client):
    page = get(client, "/")
    assert folder_rows(page) == ["a_b", "axb", "后端"]
    backend = row(page, "后端")
    assert "<span>Total <b>4</b></span><span>3 decks</span>" in backend
    assert "<span>New <b>4</b></span>" in backend
    assert 'href="/folders/%E5%90%8E%E7%AB%AF"' in backend
    assert 'href="/study?folder=%E5%90%8E%E7%AB%AF"' in backend
    assert 'href="/practice?folder=%E5%90%8E%E7%AB%AF"' in backend
    assert 'href="/interview/mock?folder=%E5%90%8E%E7%AB%AF"' in backend
    # The top shows no deeper folder and no deck of a folder: those open on the folder's page.
    assert "/decks/" not in page.replace('href="/decks/index"', "")
    inside = get(client, "/folders/后端")
    assert folder_rows(inside) == ["后端/网络"]
    assert re.findall(r'<a class="deck-name" href="/decks/[^"]+">([^<]+)</a>', inside) == ["数据库"]
    deeper = get(client, "/folders/后端/网络")
    assert folder_rows(deeper) == ["后端/网络/深入"]
    assert '<a href="/folders/%E5%90%8E%E7%AB%AF">后端</a> ›' in deeper  # the way back up
    assert "<span>Total <b>2</b></span><span>2 decks</span>" in deeper
    chinese = client.__class__(client.app, headers={"Accept-Language": "zh"})
    assert "学习此文件夹" in get(chinese, "/") and "3 个题库" in get(chinese, "/")
    assert client.get("/folders/nowhere").status_code == 404


def test_study_a_folder_shows_only_its_cards(client, find):
    page = get(client, "/study?folder=后端/网络")
    assert '<p class="muted scope">Scope: 后端/网络/ ·' in page
    assert "TCP handshake" in find(page, "card").text
    underscore = get(client, "/study?folder=a_b")
    assert "Underscore folder?" in find(underscore, "card").text
    # The scope carries on to the next card and the API the page's script calls.
    assert "folder=a_b" in underscore


def test_practice_and_mock_interview_take_a_folder(client):
    form = get(client, "/practice?folder=后端/网络")
    assert '<option value="后端/网络" selected>后端/网络/ (2)</option>' in form
    response = client.post("/practice", data={"folder": "后端/网络", "order": "content"})
    assert response.status_code == 303
    run = get(client, response.headers["location"])
    assert "1</b> / 2 · 后端/网络/" in run
    mock = get(client, "/interview/mock?folder=a_b")
    assert '<option value="a_b" selected>a_b/ (1)</option>' in mock
    started = client.post("/interview/mock", data={"folder": "a_b", "count": "5"})
    assert started.status_code == 303
    assert "Underscore folder?" in get(client, started.headers["location"])
    # A folder with no cards starts nothing, as an empty deck or tag does.
    assert client.post("/practice", data={"folder": "nowhere"}).status_code == 404


def test_a_dated_interview_takes_a_folder(client):
    date = (START + timedelta(days=10)).date().isoformat()
    form = get(client, "/interviews")
    assert '<option value="后端/网络">后端/网络/ (2)</option>' in form
    made = client.post("/interviews", data={"name": "Backend", "date": date, "folder": "后端/网络"})
    assert made.status_code == 303, made.text
    page = get(client, made.headers["location"])
    assert "Scope: 后端/网络/</p>" in page
    # Its mock interview asks from the same folder.
    assert 'href="/interview/mock?folder=%E5%90%8E%E7%AB%AF%2F%E7%BD%91%E7%BB%9C&amp;' in page
    (interview,) = client.get("/api/interviews").json()
    assert (interview["folder"], interview["deck"]) == ("后端/网络", None)
    ready = client.get(f"/api/interviews/{interview['id']}/readiness").json()
    assert ready["cards"] == 2
    assert sorted(d["title"] for d in ready["decks"]) == ["QUIC", "TCP"]
    # The API takes a folder too; one that holds no cards is refused, as an empty deck is.
    made = client.post("/api/interviews", json={"name": "A", "date": date, "folder": "a_b"})
    assert (made.status_code, made.json()["folder"]) == (201, "a_b")
    empty = client.post("/api/interviews", json={"name": "B", "date": date, "folder": "nowhere"})
    assert empty.status_code == 400


def test_a_backup_keeps_an_interview_s_folder(client):
    date = (START + timedelta(days=10)).date().isoformat()
    made = client.post("/api/interviews", json={"name": "A", "date": date, "folder": "后端"})
    backup = client.get("/backup.json")
    assert [i["folder"] for i in backup.json()["interviews"]] == ["后端"]
    assert client.delete(f"/api/interviews/{made.json()['id']}").status_code == 204
    restored = client.post(
        "/backup/restore", files={"file": ("backup.json", backup.content, "application/json")}
    )
    assert restored.status_code == 200
    assert [(i["name"], i["folder"]) for i in client.get("/api/interviews").json()] == [
        ("A", "后端")
    ]


def test_links_by_note_name_lead_to_pages_decks_and_cards(client, bank):
    assert client.get("/topics/go/index").headers["location"].startswith("/topics/")
    deck = client.get("/topics/go/tcp").headers["location"]
    assert deck.startswith("/decks/")
    card = client.get("/topics/go/db", params={"h": "为什么 B+ 树适合磁盘？"})
    assert card.headers["location"].startswith("/cards/")
    assert "扇出大" in get(client, card.headers["location"])
    unknown = client.get("/topics/go/nothing-here")
    assert unknown.headers["location"] == "/search?q=nothing-here"
