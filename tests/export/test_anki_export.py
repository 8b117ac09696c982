"""Export to Anki: the .apkg opened back (zip + SQLite), math delimited for MathJax, stable ids."""

import io
import re
import sqlite3
import zipfile
from collections.abc import Callable, Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import genanki
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.accounts.learners import get_learner
from app.cli import main
from app.config import Settings, get_settings
from app.content.bank.sync import import_content
from app.content.compile.render import Renderer
from app.export.anki import FIELDS, MODEL, export_apkg, stable_id
from app.main import create_app
from app.study import NotFound, marks
from tests.support.anki_export import export, read_apkg
from tests.support.content_files import WriteContent

GPU = r"""
---
title: GPU 基础
description: GEMM & roofline
tags: [gpu, high perf]
---

## 计算 基础

### Q：为什么 GEMM 是 $O(n^3)$？ {#gemm-core}

**面试回答。** 计算量 $F=2mnk$，比较 $a<b \& c$。

$$
P=\min(\pi, \beta I)
$$

**追问展开。** 追问 $x^2$。

**易错点 / 边界。** 行内的 $$y_1$$ 也是展示公式。

**继续读。** GEMM 与融合 / [Roofline 论文](https://example.com/roofline)

### Q：什么是 roofline？ {#roofline}

**面试回答。** 性能上限。

## 内存

### Q：HBM 带宽多大？ {#hbm}

**面试回答。** 约 3 TB/s。
"""

SYSTEMS = """
---
title: 系统
---

### Q：什么是 NVLink？ {#nvlink}

**面试回答。** GPU 之间的高速互联。

### Q：将要移除的题 {#gone}

**面试回答。** 会被删掉。
"""

TOPIC = """
---
title: GEMM 与融合
---

正文。
"""

CONTENT = {"decks/gpu.md": GPU, "decks/systems.md": SYSTEMS, "topics/gemm.md": TOPIC}
ACTIVE = {"gemm-core", "roofline", "hbm", "nvlink"}


@pytest.fixture
def bank(database, write_content: WriteContent, engine: Engine) -> Engine:
    """Two decks and a topic imported, then the 'gone' card removed (so it is retired)."""
    root = write_content(CONTENT)
    import_content(root, database)
    write_content({"decks/systems.md": SYSTEMS.split("### Q：将要移除的题")[0]})
    assert import_content(root, database).retired == 1
    return engine


# --- the package --------------------------------------------------------------------------


def test_package_holds_one_note_per_active_card(bank: Engine, tmp_path: Path) -> None:
    with Session(bank) as session:
        report = export_apkg(session=session, deck_slug=None, path=tmp_path / "all.apkg")
    assert (report.decks, report.notes) == (2, 4)
    package = read_apkg(tmp_path / "all.apkg", tmp_path)

    assert sorted(package.names) == ["collection.anki2", "media"]
    assert set(package.notes) == ACTIVE  # the retired card is left out
    assert package.decks == {
        stable_id("qbank deck: gpu"): "qbank::GPU 基础",
        stable_id("qbank deck: systems"): "qbank::系统",
    }
    assert {note.deck for note in package.notes.values()} == set(package.decks.values())
    assert package.notes["nvlink"].deck == "qbank::系统"
    [model] = package.models.values()
    assert [f["name"] for f in model["flds"]] == list(FIELDS)
    assert not (tmp_path / "all.apkg.part").exists()


def test_math_is_delimited_for_anki(bank: Engine, tmp_path: Path) -> None:
    fields = export(bank, tmp_path).notes["gemm-core"].fields

    assert fields["Question"] == r"为什么 GEMM 是 \(O(n^3)\)？"
    assert r"\(F=2mnk\)" in fields["Answer"]
    # TeX is HTML-escaped in the field, so Anki's MathJax sees `a<b \& c` again.
    assert r"\(a&lt;b \&amp; c\)" in fields["Answer"]
    assert r"\[P=\min(\pi, \beta I)\]" in fields["Answer"]
    assert r"\(x^2\)" in fields["Followups"]
    assert r"\[y_1\]" in fields["Pitfalls"]
    for field in fields.values():
        assert 'class="katex' not in field
        assert "<math" not in field


def test_report_counts_formulas(bank: Engine, tmp_path: Path) -> None:
    with Session(bank) as session:
        report = export_apkg(session=session, deck_slug="gpu", path=tmp_path / "gpu.apkg")
    assert (report.decks, report.notes, report.formulas) == (1, 3, 6)


def test_ids_are_stable_across_exports(bank: Engine, tmp_path: Path) -> None:
    first = export(bank, tmp_path, "a.apkg", now=datetime(2025, 1, 1, tzinfo=UTC))
    second = export(bank, tmp_path, "b.apkg", now=datetime(2025, 6, 1, tzinfo=UTC))

    assert {k: n.guid for k, n in first.notes.items()} == {
        k: n.guid for k, n in second.notes.items()
    }
    assert first.notes["gemm-core"].guid == genanki.guid_for("gemm-core")
    assert first.decks == second.decks
    assert set(first.models) == set(second.models) == {MODEL.model_id}


def test_tags_come_from_deck_and_section_without_spaces(bank: Engine, tmp_path: Path) -> None:
    notes = export(bank, tmp_path).notes
    assert notes["gemm-core"].tags == ["gpu", "high_perf", "计算_基础"]
    assert notes["hbm"].tags == ["gpu", "high_perf", "内存"]
    assert notes["nvlink"].tags == []


def test_reading_links_topics_only_when_qbank_address_is_known(
    bank: Engine, tmp_path: Path
) -> None:
    plain = export(bank, tmp_path, "plain.apkg").notes["gemm-core"].fields
    assert plain["Reading"] == (
        "<ul><li>GEMM 与融合</li>"
        '<li><a href="https://example.com/roofline">Roofline 论文</a></li></ul>'
    )
    assert plain["Source"] == "GPU 基础 / 计算 基础 / gemm-core"
    assert export(bank, tmp_path, "p.apkg").notes["roofline"].fields["Reading"] == ""

    linked = export(bank, tmp_path, "linked.apkg", base_url="http://qbank.local:8000/")
    fields = linked.notes["gemm-core"].fields
    assert '<a href="http://qbank.local:8000/topics/gemm">GEMM 与融合</a>' in fields["Reading"]
    assert fields["Source"] == (
        'GPU 基础 / 计算 基础 / <a href="http://qbank.local:8000/cards/gemm-core">gemm-core</a>'
    )


def test_one_deck_or_an_error_for_an_unknown_one(bank: Engine, tmp_path: Path) -> None:
    assert set(export(bank, tmp_path, deck_slug="systems").notes) == {"nvlink"}
    with Session(bank) as session, pytest.raises(NotFound) as refused:
        export_apkg(session=session, deck_slug="nope", path=tmp_path / "nope.apkg")
    assert (refused.value.code, refused.value.values) == ("deck_not_found", {"deck": "nope"})
    assert not (tmp_path / "nope.apkg").exists()


def test_empty_bank_gives_an_empty_package(engine: Engine, tmp_path: Path) -> None:
    assert export(engine, tmp_path).notes == {}


# --- The Anki form, compiled at import -------------------------------------------------


def anki_form(markdown: str, *, inline: bool = False) -> str:
    return Renderer().render(markdown, path="t.md", line=1, errors=[], inline=inline).anki


@pytest.mark.parametrize(
    ("markdown", "inline", "expected"),
    [
        ("$x$", True, r"\(x\)"),
        ("a $x_1 < y$ b", False, "<p>a \\(x_1 &lt; y\\) b</p>\n"),
        (r"$a \& b$", True, r"\(a \&amp; b\)"),
        ("$$\nE=mc^2\n$$", False, r"\[E=mc^2\]"),
        ("no math, just <b>text</b>", False, "<p>no math, just <b>text</b></p>\n"),
        ("$a$ and $$b$$", True, r"\(a\) and \[b\]"),
        ("```math\nx^2\n```", False, r"\[x^2\]"),
        ("\\(a\\) and\n\n\\[\nb\n\\]", False, "<p>\\(a\\) and</p>\n\\[b\\]"),
    ],
)
def test_the_anki_form_has_formulas_as_delimited_tex(
    markdown: str, inline: bool, expected: str
) -> None:
    assert anki_form(markdown, inline=inline) == expected


# --- CLI and web --------------------------------------------------------------------------


def test_cli_exports_a_deck(
    settings_database, settings: Settings, write_content: WriteContent, tmp_path: Path
) -> None:
    import_content(write_content(CONTENT), settings_database)
    out = tmp_path / "gpu.apkg"

    result = CliRunner().invoke(main, ["export", "anki", "--deck", "gpu", str(out)])

    assert result.exit_code == 0, result.output
    assert result.stdout == f"1 decks, 3 notes, 6 formulas: {out}\n"
    assert set(read_apkg(out, tmp_path).notes) == {"gemm-core", "roofline", "hbm"}


def test_cli_links_from_base_url_or_the_configured_public_url(
    settings_database,
    settings: Settings,
    write_content: WriteContent,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import_content(write_content(CONTENT), settings_database)
    out = tmp_path / "gpu.apkg"

    def source_field(*options: str) -> str:
        result = CliRunner().invoke(main, ["export", "anki", "--deck", "gpu", *options, str(out)])
        assert result.exit_code == 0, result.output
        return read_apkg(out, tmp_path).notes["gemm-core"].fields["Source"]

    assert "href" not in source_field()
    given = source_field("--base-url", "https://cards.example.net/")
    assert 'href="https://cards.example.net/cards/gemm-core"' in given

    monkeypatch.setenv("QBANK_PUBLIC_URL", "https://qbank.example.org")
    get_settings.cache_clear()
    assert 'href="https://qbank.example.org/cards/gemm-core"' in source_field()
    # An explicit --base-url wins over the setting.
    assert "cards.example.net" in source_field("--base-url", "https://cards.example.net")

    result = CliRunner().invoke(main, ["export", "anki", "--base-url", "ftp://x", str(out)])
    assert result.exit_code == 1
    assert (
        result.stderr == "error: public URL must be an http:// or https:// address, not 'ftp://x'\n"
    )


def card_marks(apkg: Path | bytes, tmp_path: Path) -> dict[str, tuple[int, int, bool]]:
    """Each card's Anki queue (-1: suspended), flag and whether it carries the leech tag."""
    collection = tmp_path / "marks.anki2"
    data = apkg if isinstance(apkg, bytes) else apkg.read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        collection.write_bytes(archive.read("collection.anki2"))
    with closing(sqlite3.connect(collection)) as db:
        rows = db.execute(
            "SELECT n.flds, c.queue, c.flags, n.tags FROM notes n JOIN cards c ON c.nid = n.id"
        ).fetchall()
    collection.unlink()
    found = {}
    for flds, queue, flags, tags in rows:
        card_id = re.sub(r"<[^>]+>", "", flds.split("\x1f")[FIELDS.index("Source")]).rsplit(
            " / ", 1
        )[-1]
        found[card_id] = (queue, flags, "leech" in tags.split())
    return found


def test_cli_carries_a_named_learners_marks(
    settings_database, settings: Settings, write_content: WriteContent, tmp_path: Path
) -> None:
    database = settings_database
    import_content(write_content(CONTENT), database)
    with database.session() as session:
        learner = get_learner(session, "ada")
        now = datetime.now(UTC)
        marks.suspend(session, learner=learner, card_id="roofline", now=now, database=database)
        marks.set_flag(session, learner=learner, card_id="hbm", flag=3, now=now, database=database)
    out = tmp_path / "gpu.apkg"

    plain = CliRunner().invoke(main, ["export", "anki", "--deck", "gpu", str(out)])
    assert plain.exit_code == 0, plain.output
    assert {queue for queue, _, _ in card_marks(out, tmp_path).values()} == {0}
    marked = CliRunner().invoke(
        main, ["export", "anki", "--deck", "gpu", "--learner", "ada", str(out)]
    )
    assert marked.exit_code == 0, marked.output
    found = card_marks(out, tmp_path)
    assert (found["roofline"][0], found["hbm"][1], found["gemm-core"]) == (-1, 3, (0, 0, False))
    nobody = CliRunner().invoke(main, ["export", "anki", "--learner", "nobody", str(out)])
    assert nobody.exit_code == 1 and nobody.stderr.startswith("error: ")


def test_cli_reports_an_unknown_deck_in_one_line(settings: Settings, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["export", "anki", "--deck", "nope", str(tmp_path / "x")])
    assert result.exit_code == 1
    assert result.stderr == "error: no deck 'nope'\n"
    assert not (tmp_path / "x").exists()


@pytest.fixture
def make_client(
    database_url: str, write_content: WriteContent
) -> Iterator[Callable[..., TestClient]]:
    """Factory: a client of the app on the test bank, with `settings` overridden."""
    root = write_content(CONTENT)
    opened: list[tuple[Any, TestClient]] = []

    def make(**settings: Any) -> TestClient:
        app = create_app(
            Settings(
                _env_file=None,  # type: ignore[call-arg]
                database_url=database_url,
                content_dir=root,
                **settings,
            )
        )
        app.state.database.upgrade()  # before its lifespan: written to first
        import_content(root, app.state.database)
        client = TestClient(app, headers={"Accept-Language": "en"}).__enter__()
        opened.append((app, client))
        return client

    yield make
    for app, client in opened:
        client.__exit__(None, None, None)
        app.state.database.engine.dispose()


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()


def test_web_download_of_one_deck(client: TestClient, tmp_path: Path) -> None:
    response = client.get("/export/anki", params={"deck": "gpu"})

    assert response.status_code == 200
    assert response.headers["content-disposition"] == (
        "attachment; filename=\"qbank-gpu.apkg\"; filename*=UTF-8''qbank-gpu.apkg"
    )
    notes = read_apkg(response.content, tmp_path).notes
    assert set(notes) == {"gemm-core", "roofline", "hbm"}
    # No public address is configured: qbank links are left out, whatever the Host header.
    assert notes["gemm-core"].fields["Reading"] == (
        "<ul><li>GEMM 与融合</li>"
        '<li><a href="https://example.com/roofline">Roofline 论文</a></li></ul>'
    )


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1:8000"])
def test_web_export_links_come_from_the_public_url_never_the_host_header(
    make_client: Callable[..., TestClient], tmp_path: Path, host: str
) -> None:
    # Any Host is let through, so that what is tested is the export, not the host guard.
    plain = make_client(allowed_hosts="*")
    linked = make_client(allowed_hosts="*", public_url="https://qbank.example.org/team/")
    for client, base in ((plain, None), (linked, "https://qbank.example.org/team")):
        response = client.get("/export/anki", params={"deck": "gpu"}, headers={"Host": host})
        assert response.status_code == 200
        fields = read_apkg(response.content, tmp_path).notes["gemm-core"].fields
        assert host not in response.content.decode("latin-1")
        assert "testserver" not in fields["Reading"] + fields["Source"]
        if base is None:
            assert "href" not in fields["Source"]
        else:
            assert f'<a href="{base}/topics/gemm">GEMM 与融合</a>' in fields["Reading"]
            assert f'href="{base}/cards/gemm-core"' in fields["Source"]


def test_web_download_carries_the_learners_own_marks(client: TestClient, tmp_path: Path) -> None:
    assert client.post("/api/cards/roofline/suspend").status_code == 200
    assert client.post("/api/cards/hbm/flag", json={"flag": 4}).status_code == 200
    found = card_marks(client.get("/export/anki", params={"deck": "gpu"}).content, tmp_path)
    assert found == {
        "gemm-core": (0, 0, False),
        "roofline": (-1, 0, False),  # suspended
        "hbm": (0, 4, False),  # blue
    }


def test_web_download_of_everything_and_unknown_deck(client: TestClient, tmp_path: Path) -> None:
    response = client.get("/export/anki")
    assert response.status_code == 200
    assert len(read_apkg(response.content, tmp_path).notes) == 5
    assert client.get("/export/anki", params={"deck": "nope"}).status_code == 404


def test_home_and_deck_pages_link_to_the_export(client: TestClient) -> None:
    assert 'href="/export/anki"' in client.get("/").text
    assert 'href="/export/anki?deck=gpu"' in client.get("/decks/gpu").text
