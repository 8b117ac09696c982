"""Every interface string is worded in both languages and used; every lookup finds a string.

A key is "used" when the code names it as a quoted literal (a template's `t('nav.home')`, a tuple
of client strings, a `Refusal("limits.quota_range")`), or when it is one of the values of a lookup
built at run time (`t('queue.' ~ queue)`). Those dynamic lookups are listed in DYNAMIC with the
values they can take, taken from the code that produces them wherever it names them; a new dynamic
lookup fails the test until it is listed here, so no key hides behind a pattern.
"""

import dataclasses
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from app.content.bank.imports import SOURCES
from app.infra.models import CARD_KINDS
from app.scheduling.cardstate import Queue
from app.stats.summary import StateCounts
from app.study.browse import MarkKind
from app.study.marks import FLAGS
from app.study.service import CardAction
from app.web.i18n import STRINGS
from app.web.routes.mock import CLIENT_STRINGS
from app.web.routes.study import MESSAGES
from tests.support.refusals import raised_keys

ROOT = Path(__file__).resolve().parents[2]
DEFINITIONS = {
    ROOT / "app/web/i18n.py",
    ROOT / "app/content/messages.py",
    *(ROOT / "app/strings").glob("*.py"),
}
NAMESPACES = "|".join(sorted({key.split(".")[0] for key in STRINGS}))
# Names of files that read like keys: `'study.js'`, `"error.html"`.
FILE_NAME = re.compile(r"\.(html|js|css)$")
RATINGS = ("again", "hard", "good", "easy")


def _reasons(path: str, exception: str) -> set[str]:
    """The reason codes (first argument) `path` raises `exception` with."""
    source = (ROOT / path).read_text(encoding="utf-8")
    return set(re.findall(rf'raise {exception}\(\s*"(\w+)"', source))


# Lookups built at run time: the key's fixed start, and every value its end can take.
DYNAMIC: dict[str, Iterable[str]] = {
    # templates/_card_meta.html, card.html, deck.html and static/study-paint.js: the card's queue.
    "queue.": [queue.value for queue in Queue],
    # templates/stats.html and card.html: a card's kind.
    "kind.": CARD_KINDS,
    # templates/stats.html and app/web/svg.py: one row per StateCounts field.
    "stats.state.": [field.name for field in dataclasses.fields(StateCounts)],
    # Study, practice and mock pages: the rating buttons; done/card/marks/study pages: the notice
    # a redirect names (`?msg=`: MESSAGES, a card action's past tense in routes/marks.py);
    # static/study-state.js: the action that took the card away.
    "study.": {
        *RATINGS,
        *MESSAGES,
        *(action.value for action in CardAction if action is not CardAction.FLAG),
        *("flagged", "unflagged"),
    },
    # templates/marks.html: a list's tab, title and introduction, and its "take back" button.
    "marks.list.": [kind.value for kind in MarkKind],
    "marks.intro.": [kind.value for kind in MarkKind],
    "marks.": ("unsuspend", "unbury", "unleech", "unflag"),
    "marks.flag.": FLAGS,
    # templates/account.html: `/account?done=` from routes/account.py.
    "auth.done_": ("password", "revoked"),
    # templates/_optimizer.html and settings.html: why a fit or a set of parameters was refused.
    "fit.": _reasons("app/scheduling/fitting.py", "FitRefused"),
    "params.": _reasons("app/scheduling/parameters.py", "BadParameters"),
    # templates/interview.html: the day plan's warnings ("over_reviews|…", app/interview/plan.py).
    "interview.warn_": set(
        re.findall(r'f"(\w+)\|', (ROOT / "app/interview/plan.py").read_text(encoding="utf-8"))
    ),
    # static/interview-state.js: answers still to send, by the queue's state; the page gets these
    # keys from app/web/routes/mock.py.
    "mock.sync_": {
        key.removeprefix("mock.sync_") for key in CLIENT_STRINGS if key.startswith("mock.sync_")
    },
    # templates/search.html: a hit's kind (app/search/query.py).
    "search.": ("card", "topic"),
    # app/errors.py: a refusal's message is `error.<code>` (tests/support/refusals.py finds them).
    "error.": {key.removeprefix("error.") for key in raised_keys() if key.startswith("error.")},
    # templates/import.html: who ran the import.
    "import.source_": SOURCES,
    # templates/_problem.html: a content problem an import kept, by the code it was made with.
    "content.": set(
        re.findall(
            r'\.of\(\s*"(\w+)"',
            "".join(p.read_text(encoding="utf-8") for p in (ROOT / "app/content").rglob("*.py")),
        )
    )
    | {"deck_slug_taken", "topic_slug_taken"},  # app/content/bank/repair.py passes these on
}


def _sources() -> dict[Path, str]:
    """The text of every template, script and module that may look a string up."""
    files = [
        *(ROOT / "templates").rglob("*.html"),
        *(ROOT / "static").glob("*.js"),
        *(ROOT / "app").rglob("*.py"),
    ]
    return {p: p.read_text(encoding="utf-8") for p in files if p not in DEFINITIONS}


SOURCES = _sources()


def _literals() -> set[str]:
    """Quoted strings in the sources that have the shape of a key."""
    pattern = re.compile(rf"""["'`]((?:{NAMESPACES})\.[a-z0-9_.]*[a-z0-9])["'`]""")
    found = set()
    for path, text in SOURCES.items():
        if "migrations" in path.parts or path.name == "models.py":
            continue  # foreign keys such as "card.id"
        found |= {m for m in pattern.findall(text) if not FILE_NAME.search(m)}
    return found - {"settings.database_url"}  # a setting's name in an error message


def _dynamic_prefixes() -> set[str]:
    """The fixed starts of keys joined to a value: `'x.' ~ v`, `"x." + v`, `f"x.{v}"`."""
    joined = re.compile(rf"""["'`]((?:{NAMESPACES})\.(?:[a-z0-9_.]*[._])?)["'`]\s*[~+]""")
    formatted = re.compile(rf"""\bf["']((?:{NAMESPACES})\.[a-z0-9_.]*)\{{""")
    found = set()
    for text in SOURCES.values():
        found |= set(joined.findall(text)) | set(formatted.findall(text))
    return found


def _dynamic_keys() -> set[str]:
    return {prefix + value for prefix, values in DYNAMIC.items() for value in values}


def test_every_string_is_worded_in_both_languages() -> None:
    for key, pair in STRINGS.items():
        assert len(pair) == 2, key
        zh, en = pair
        assert zh.strip() and en.strip(), key


def test_both_languages_fill_the_same_fields() -> None:
    def fields(text: str) -> list[str]:
        return sorted(re.findall(r"\{(\w*)[}:!]", text))

    mismatched = {key for key, (zh, en) in STRINGS.items() if fields(zh) != fields(en)}
    assert not mismatched


def test_the_chinese_strings_are_chinese() -> None:
    # The language switch names the other language, so its Chinese side is "English".
    han = re.compile(r"[\u4e00-\u9fff]")
    english_only = {key for key, (zh, _) in STRINGS.items() if not han.search(zh)}
    assert english_only <= {"lang.switch"}


def test_every_dynamic_lookup_is_listed() -> None:
    assert _dynamic_prefixes() == set(DYNAMIC)


@pytest.mark.parametrize("prefix", sorted(DYNAMIC))
def test_every_value_of_a_dynamic_lookup_has_a_string(prefix: str) -> None:
    values = set(DYNAMIC[prefix])
    assert values, f"no values found for {prefix}"
    assert {prefix + value for value in values} - STRINGS.keys() == set()


def test_every_key_the_code_names_is_defined() -> None:
    assert _literals() - STRINGS.keys() == set()


def test_every_string_is_used() -> None:
    assert STRINGS.keys() - _literals() - _dynamic_keys() == set()
