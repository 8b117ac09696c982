"""Every problem an import can record renders on the import pages and in the CLI, whatever its
values are named or hold: values are passed as one mapping, never as keywords."""

import html
import string
from datetime import UTC, datetime

import pytest

from app.content.errors import CHINESE, ENGLISH, ContentError, Said
from app.content.messages import PROBLEMS
from app.infra.jobs import DONE, FAILED
from app.infra.models import Job

CODES = sorted(key.removeprefix("content.") for key in PROBLEMS)
# Names that collide with a translator's own parameters, the template's globals, or Python's.
HOSTILE_NAMES = ("key", "lang", "self", "values", "t", "index", "code", "__obj", "_Context__self")
HOSTILE_TEXT = "<script>alert(1)</script>{0}{key}\"'&"


def hostile_values(code: str) -> dict[str, object]:
    """Each of the wording's own fields and every hostile name, all holding markup."""
    fields = {
        name
        for wording in PROBLEMS[f"content.{code}"]
        for _, name, _, _ in string.Formatter().parse(wording)
        if name
    }
    return {name: f"{name}:{HOSTILE_TEXT}" for name in (*sorted(fields), *HOSTILE_NAMES)}


def recorded(code: str) -> dict[str, object]:
    said = Said.of(code, **hostile_values(code))  # type: ignore[arg-type]
    return {
        "path": "a.md",
        "line": 3,
        "message": said.message,
        "code": code,
        "values": dict(said.values),
    }


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_code_is_worded_with_hostile_values_in_the_macro_and_the_cli(lang: str) -> None:
    from app.web.i18n import translator, worded
    from app.web.templating import templates

    macro = templates.env.get_template("_problem.html").make_module(
        {"t": translator(lang), "worded": lambda key, values: worded(key, values, lang)}
    )
    for code in CODES:
        problem = recorded(code)
        shown = str(macro.said(problem))
        assert "<script>" not in shown, code
        index = CHINESE if lang == "zh" else ENGLISH
        text = ContentError.of(code, "a.md", 3, **hostile_values(code)).said.worded(index)  # type: ignore[arg-type]
        assert html.unescape(shown) == text, code
        # Worded with its values, not left as the bare wording or the code.
        wording = PROBLEMS[f"content.{code}"][index]
        for _, name, _, _ in string.Formatter().parse(wording):
            assert not name or f"{name}:<script>" in text, code


def test_a_value_named_key_words_and_renders() -> None:
    from app.web.i18n import translator

    said = Said.of("frontmatter_not_text", key="date")
    assert said.worded(ENGLISH) == "front matter 'date' must be text"
    assert translator("en")("content.frontmatter_not_text", key="date") == said.message


def _job(db, status: str, problems: list[dict[str, object]]) -> int:
    now = datetime.now(UTC)
    field = "warnings" if status == DONE else "errors"
    result = {"source": "cli", field: problems}
    if status == DONE:
        result |= {"decks": 1, "topics": 0, "added": 0, "updated": 0, "unchanged": 0}
        result |= {"retired": 0, "resumed": 0, "files_read": 1, "files_skipped": 0}
        result |= {"formulas_rendered": 0}
    with db.database.session() as session, db.database.writing(session):
        job = Job(kind="import", learner_id=None, status=status, message="m", result=result)
        job.created_at = job.started_at = job.finished_at = now
        session.add(job)
        session.flush()
        assert job.id is not None
        return job.id


@pytest.mark.parametrize("status", [DONE, FAILED])
def test_the_import_pages_render_every_problem_with_hostile_values(browser, db, status) -> None:
    problems = [recorded(code) for code in CODES]
    job_id = _job(db, status, problems)
    admin = browser("admin")
    for lang in ("zh", "en"):
        headers = {"Accept-Language": lang}
        for url in ("/import", f"/admin/import?job={job_id}"):
            page = admin.get(url, headers=headers)
            assert page.status_code == 200, (url, lang, page.text[-2000:])
            assert "<script>alert(1)</script>" not in page.text
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
            if lang == "en":
                assert "front matter &#39;key:&lt;script&gt;" in page.text
            else:
                assert "front matter 的 &#39;key:&lt;script&gt;" in page.text
