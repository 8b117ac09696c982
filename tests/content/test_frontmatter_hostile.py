"""Front matter nobody should write: every odd value is a warning at its line, never a crash."""

import string
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cli import main
from app.config import Settings
from app.content.notes.frontmatter import NEWLINE
from app.content.notes.parse import parse_note
from tests.support.examples import examples

BODY = "# 部署\n\n## Q: 什么是 warp？\n\n32 个线程一起执行。\n"

HOSTILE = {
    "impossible date": ("date: 2024-13-45", 2, "month must be in 1..12"),
    "huge integer": ("n: " + "9" * 5000, 2, "integer string conversion"),
    "alias": ("a: &x [1, 2]\nb: *x", 3, "aliases"),
    "python tag": ("t: !!python/object/apply:os.system [ls]", 2, "constructor"),
    "unknown tag": ("title: !secret x", 2, "constructor"),
    "deep nesting": ("x: " + "[" * 3000 + "]" * 3000, 2, "nested too deeply"),
    "unhashable key": ("? [a, b]\n: c", 2, "unhashable key"),
    "not yaml": ("title: [unclosed", 2, "invalid YAML"),
    "a list": ("- a\n- b", 2, "mapping"),
}


def note(front: str) -> str:
    return f"---\n{front}\n---\n{BODY}"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("front, line, said", HOSTILE.values(), ids=HOSTILE.keys())
def test_odd_front_matter_is_a_warning_and_the_note_keeps_its_cards(
    front: str, line: int, said: str
) -> None:
    deck, errors = parse_note("decks/a.md", note(front))
    assert [(e.path, e.line) for e in errors] == [("decks/a.md", line)]
    assert said in str(errors[0])
    assert [card.question for card in getattr(deck, "cards", [])] == ["什么是 warp？"]


def test_dates_read_as_text() -> None:
    deck, errors = parse_note("a.md", note("title: 2024-01-02\ntags: [2024-01-02, gpu]"))
    assert errors == []
    assert deck.title == "2024-01-02"
    assert getattr(deck, "tags", None) == ["2024-01-02", "gpu"]


def test_check_import_and_strict_name_the_line_and_import_the_rest(
    settings: Settings, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "bad.md").write_text(note("date: 2024-13-45"), encoding="utf-8")
    (folder / "good.md").write_text(
        "# 好\n\n## Q: 什么是 SM？\n\n流式多处理器。\n", encoding="utf-8"
    )

    checked = run("check", str(folder))
    assert checked.exit_code == 0, checked.output
    assert "bad.md:2: " in checked.stderr and "Traceback" not in checked.output

    strict = run("check", "--strict", str(folder))
    assert strict.exit_code == 1
    assert "bad.md:2: " in strict.stderr and "Traceback" not in strict.output
    assert strict.exception is None or isinstance(strict.exception, SystemExit)

    imported = run("import", str(folder))
    assert imported.exit_code == 0, imported.output
    assert "bad.md:2: " in imported.stderr
    assert "2 added" in imported.stdout


# Front matter built from YAML's own pieces, so that the odd cases are likely, not rare.
_SCALARS = st.one_of(
    st.from_regex(r"\A-?\d{1,6}(-\d{1,3}){0,2}([ T]\d{1,3}:\d{1,3}(:\d{1,3})?)?\Z"),
    st.integers(4290, 4400).map(lambda n: "9" * n),
    st.sampled_from(
        ["~", "null", "yes", "no", ".inf", "-.nan", "0x_", "0o9", "1e99999", "!!binary x"]
    ),
    st.sampled_from(["&a x", "*a", "!!python/name:os.system", "!t x", "<<: *a", "? x", "|", ">-"]),
    st.text(string.printable + "：、中文　\t", max_size=30),
)
_KEYS = st.sampled_from(
    ["title", "tags", "date", "slug", "labels", "kind", "style", "aliases", "description", "x"]
)


@st.composite
def front_matters(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        key = draw(_KEYS)
        shape = draw(st.integers(0, 3))
        value = draw(_SCALARS)
        if shape == 1:
            value = "[" + ", ".join(draw(st.lists(_SCALARS, max_size=3))) + "]"
        elif shape == 2:
            value = "{" + f"answer: {value}" + "}"
        elif shape == 3:
            value = "\n" + "\n".join(f"  - {v}" for v in draw(st.lists(_SCALARS, max_size=3)))
        lines.append(f"{key}: {value}")
    return "\n".join(lines)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(front_matters())
def test_no_front_matter_raises_and_every_problem_has_its_line(front: str) -> None:
    _deck, errors = parse_note("decks/a.md", note(front))
    last = len(NEWLINE.split(front)) + 2  # a lone CR ends a line, as in markdown-it
    assert all(e.path == "decks/a.md" and 1 <= e.line <= last for e in errors), errors


@settings(
    max_examples=examples(10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(front=front_matters())
def test_check_and_import_never_raise(front: str, settings: Settings, tmp_path: Path) -> None:
    folder = tmp_path / "fuzz"
    folder.mkdir(exist_ok=True)
    (folder / "a.md").write_text(note(front), encoding="utf-8")
    for args in (
        ("check", str(folder)),
        ("check", "--strict", str(folder)),
        ("import", str(folder)),
    ):
        result = run(*args)
        assert result.exit_code in (0, 1), (args, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert "Traceback" not in result.output


def test_a_note_the_parser_cannot_read_is_left_out_and_the_rest_imports(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.content.compile import build

    real = build.parse_note

    def fragile(path: str, text: str, **kwargs: bool) -> object:
        if path == "bad.md":
            raise RecursionError("maximum recursion depth exceeded")
        return real(path, text, **kwargs)

    monkeypatch.setattr(build, "parse_note", fragile)
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "bad.md").write_text(note("title: x"), encoding="utf-8")
    (folder / "good.md").write_text(
        "# 好\n\n## Q: 什么是 SM？\n\n流式多处理器。\n", encoding="utf-8"
    )
    imported = run("import", str(folder))
    assert imported.exit_code == 0, imported.output
    assert "bad.md:1: this note could not be parsed (RecursionError" in imported.stderr
    assert "1 added" in imported.stdout
