"""Every import keeps its report; the import report page shows the latest, file by file."""

import html
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlmodel import col, select

from app.cli import main
from app.content.bank.imports import KIND, by_file, latest_report
from app.content.messages import PROBLEMS as WORDINGS
from app.infra.jobs import DONE, FAILED
from app.infra.models import Card, Job
from app.serve import ensure_imported
from tests.support import http
from tests.support.banks import bank_session

# Folder prefixes, names and the job rows are compared in SQL: both databases.
pytestmark = pytest.mark.storage

PROBLEMS = Path(__file__).parents[1] / "fixtures" / "notes" / "problems"


@pytest.fixture
def problems_dir(settings) -> Path:
    shutil.copytree(PROBLEMS, settings.content_dir)
    return settings.content_dir


def _imports(settings) -> list[Job]:
    with bank_session(settings) as session:
        return list(session.exec(select(Job).where(Job.kind == KIND).order_by(col(Job.id))))


def test_the_cli_and_serve_record_their_imports_with_each_warning(
    settings_database, settings, problems_dir
):
    assert ensure_imported(settings_database, settings)
    result = CliRunner().invoke(main, ["import"])
    assert result.exit_code == 0, result.output
    # A dry run keeps nothing and is no import.
    assert CliRunner().invoke(main, ["import", "--dry-run"]).exit_code == 0
    jobs = _imports(settings)
    assert [(j.status, j.result["source"]) for j in jobs] == [(DONE, "serve"), (DONE, "cli")]
    with settings_database.session() as session:
        cards = len(session.exec(select(Card.id)).all())
    first = jobs[0].result
    assert cards > 0 and first["added"] == cards and first["decks"] >= 5
    assert jobs[1].result["unchanged"] == cards and jobs[1].active_key is None
    warnings = first["warnings"]
    assert warnings, "the problems folder gives warnings"
    for warning in warnings:
        assert set(warning) == {"path", "line", "message", "code", "values"}
        assert f"content.{warning['code']}" in WORDINGS
        assert (problems_dir / warning["path"]).is_file()
        assert warning["line"] >= 1
    # The page shows the import that read the notes, not the later one that found them unchanged.
    with settings_database.session() as session:
        view = latest_report(session)
    assert view.job is not None and view.job.id == jobs[0].id
    assert view.problem_count == len(warnings)
    (problems_dir / "dup-b.md").unlink()
    assert CliRunner().invoke(main, ["import"]).exit_code == 0
    with settings_database.session() as session:
        view = latest_report(session)
    assert view.job is not None and view.result["retired"] == 1
    assert "dup-b.md" not in {f.path for f in view.files}


def test_a_strict_import_that_fails_is_recorded_with_its_errors(settings, problems_dir):
    result = CliRunner().invoke(main, ["import", "--strict"])
    assert result.exit_code != 0
    (job,) = _imports(settings)
    assert job.status == FAILED and job.result["source"] == "cli"
    errors = job.result["errors"]
    assert errors and all(set(e) == {"path", "line", "message", "code", "values"} for e in errors)
    assert {e["path"] for e in errors} <= {p.name for p in problems_dir.iterdir()}


def test_problems_group_by_file_in_line_order_as_fields_or_as_older_text():
    grouped = by_file(
        [
            {"path": "b.md", "line": 9, "message": "late"},
            "a.md:3: kept as text",
            {"path": "b.md", "line": 2, "message": "early"},
            "no place at all",
        ]
    )
    assert [(f.path, [p["line"] for p in f.problems]) for f in grouped] == [
        ("", [0]),
        ("a.md", [3]),
        ("b.md", [2, 9]),
    ]
    assert grouped[1].problems[0]["message"] == "kept as text"


def test_the_report_page_over_real_http_in_both_languages(
    settings_database, settings, problems_dir, live_server, database_url
):
    server = live_server(settings.database_url, problems_dir)
    with http.client(server.url, timeout=30) as client:
        english = client.get("/import", headers={"Accept-Language": "en"})
        assert english.status_code == 200
        page = english.text
        assert "Import report" in page and "qbank serve at start-up" in page
        with settings_database.session() as session:
            cards = len(session.exec(select(Card.id)).all())
        assert f'data-figure="added">{cards}<' in page
        # Each file with warnings once, its lines in a table.
        assert page.count("<code>bad-formula.md</code>") == 1
        assert page.count("<code>images.md</code>") == 1
        assert '<td class="line">' in page
        assert "image &#39;img/memory-hierarchy.png&#39; not found" in page
        chinese = client.get("/import", headers={"Accept-Language": "zh"}).text
        assert "导入报告" in chinese and "qbank serve 启动时" in chinese
        # The warnings are worded in the reader's language too.
        assert "找不到图片 &#39;img/memory-hierarchy.png&#39;" in chinese
        assert "not found" not in chinese
        settings_page = client.get("/settings", headers={"Accept-Language": "en"}).text
        assert 'href="/import"' in settings_page


@pytest.mark.parametrize(
    ("lang", "problem", "shown"),
    [
        ("zh", {"code": "image_not_found", "values": {"path": "a.png"}}, "找不到图片 'a.png'"),
        ("en", {"code": "image_not_found", "values": {"path": "a.png"}}, "image 'a.png' not found"),
        # Kept by a version that stored only the English, or a code this version does not know.
        ("zh", {"message": "image 'a.png' not found"}, "image 'a.png' not found"),
        ("zh", {"code": "gone", "values": {}, "message": "as kept"}, "as kept"),
        # A wording whose values changed since: shown without them rather than failing.
        ("en", {"code": "image_not_found", "values": {}}, "image '{path}' not found"),
    ],
)
def test_a_kept_problem_is_worded_in_the_reader_s_language(
    lang: str, problem: dict[str, object], shown: str
) -> None:
    from app.web.i18n import translator, worded
    from app.web.templating import templates

    macro = templates.env.get_template("_problem.html").make_module(
        {"t": translator(lang), "worded": lambda key, values: worded(key, values, lang)}
    )
    said = str(macro.said({"path": "a.md", "line": 3, **problem}))
    assert html.unescape(said) == shown
