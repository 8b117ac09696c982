"""Every module or name a template's comment points to exists, so the comments stay a true map."""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))
COMMENT = re.compile(r"\{#.*?#\}", re.S)
DOTTED = re.compile(r"(?<![/\w.-])app(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(r"\bapp/[\w/]+\.py\b")


def named(text: str) -> set[str]:
    """The `app.…` names and `app/….py` paths in the template's comments."""
    comments = " ".join(COMMENT.findall(text))
    return set(DOTTED.findall(comments)) | set(PATH.findall(comments))


def exists(name: str) -> bool:
    """Whether `name` is a module of app/, a path in the tree, or a name in such a module."""
    if "/" in name:
        return (ROOT / name).is_file()
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def test_the_check_sees_a_moved_module() -> None:
    assert named("{# a (app.cardview.CardView) #} app.not.a.comment") == {"app.cardview.CardView"}
    assert not exists("app.cardview.CardView")
    assert exists("app.study.cardview.CardView")
    assert not exists("app.study.cardview.NoSuchView")
    assert exists("app/study/cardview.py")


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.name)
def test_every_name_a_comment_gives_exists(template: Path) -> None:
    missing = {n for n in named(template.read_text(encoding="utf-8")) if not exists(n)}
    assert missing == set()
