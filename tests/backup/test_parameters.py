"""FSRS settings in a backup: unusable parameter sets refused clearly, the rest restored."""

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from app.backup import dump_backup, export_learner, restore_learner
from app.backup.document import BackupError
from app.cli import main as cli
from app.config import Settings
from app.main import create_app
from app.scheduling.parameters import DEFAULT_PARAMETERS, BadParameters, check_parameters
from app.study import get_learner
from tests.support.banks import bank_session, commit

pytestmark = pytest.mark.storage

GOOD = list(DEFAULT_PARAMETERS)


@pytest.mark.parametrize(
    ("values", "reason", "details"),
    [
        (GOOD[:19], "wrong_length", {"count": 19, "expected": 21}),
        ([*GOOD, 0.1], "wrong_length", {"count": 22, "expected": 21}),
        ([math.nan, *GOOD[1:]], "not_finite", {"index": 0}),
        ([*GOOD[:5], math.inf, *GOOD[6:]], "not_finite", {"index": 5}),
        ([*GOOD[:3], "8", *GOOD[4:]], "not_finite", {"index": 3}),
        ([*GOOD[:20], 5.0], "out_of_range", {"index": 20}),
    ],
)
def test_bad_vectors_are_refused_saying_what_is_wrong(
    values: list[Any], reason: str, details: dict[str, int]
) -> None:
    with pytest.raises(BadParameters) as refused:
        check_parameters(values)
    assert (refused.value.code, refused.value.status) == (f"parameters_{reason}", 400)
    assert (refused.value.reason, refused.value.details) == (reason, details)


def test_the_defaults_pass() -> None:
    assert check_parameters(GOOD) == DEFAULT_PARAMETERS


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), headers={"Accept-Language": "en"}) as client:
        yield client


def backup_text(settings: Settings, parameters: str) -> str:
    """A backup of the local learner whose parameters are the JSON text `parameters`."""
    with bank_session(settings) as session:
        learner = get_learner(session, settings.learner_name)
        doc = export_learner(session=session, learner=learner)
    doc["learner"]["settings"]["new_per_day"] = 7
    doc["learner"]["settings"]["fsrs_parameters"] = "@"
    return dump_backup(doc).replace('"@"', parameters)


@pytest.mark.parametrize(
    ("parameters", "english", "chinese"),
    [
        (
            json.dumps(GOOD[:19]),
            "The FSRS parameters have 19 numbers where FSRS-6 has 21: the defaults are used "
            "instead.",
            "FSRS 参数有 19 个数，FSRS-6 需要 21 个：改用默认参数。",
        ),
    ],
)
def test_a_restored_backup_with_bad_parameters_keeps_the_defaults_and_the_rest(
    settings_database,
    settings: Settings,
    client: TestClient,
    parameters: str,
    english: str,
    chinese: str,
) -> None:
    text = backup_text(settings, parameters)
    with settings_database.session() as session:
        learner = get_learner(session, settings.learner_name)
        report = restore_learner(
            session=session, learner=learner, data=text, database=settings_database
        )
        assert report.parameters_refused is not None
        assert (learner.fsrs_parameters, learner.new_per_day) == (None, 7)

    for lang, expected in (("en", english), ("zh", chinese)):
        upload = {"file": ("backup.json", text.encode(), "application/json")}
        page = client.post("/backup/restore", files=upload, headers={"Accept-Language": lang})
        assert page.status_code == 200
        assert f'id="restore-parameters">{expected}</p>' in page.text

    path = settings.content_dir.parent / "backup.json"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["restore", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith(f"FSRS parameters not restored ({english})")
    with settings_database.session() as session:
        assert get_learner(session, settings.learner_name).fsrs_parameters is None


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_a_backup_with_a_non_finite_parameter_is_refused_whole(
    settings_database, settings: Settings, literal: str
) -> None:
    # Not JSON at all (NaN and Infinity are JavaScript, not JSON): the whole document is
    # refused before anything is written, as any poisoned backup is.
    text = backup_text(settings, json.dumps(GOOD[:20]).replace("]", f", {literal}]"))
    with settings_database.session() as session:
        learner = get_learner(session, settings.learner_name)
        before = learner.new_per_day
        with pytest.raises(BackupError, match=f"{literal.lstrip('-')} is not a number"):
            restore_learner(session=session, learner=learner, data=text, database=settings_database)
    with settings_database.session() as session:
        learner = get_learner(session, settings.learner_name)
        assert (learner.fsrs_parameters, learner.new_per_day) == (None, before)


def test_a_restored_backup_with_good_parameters_uses_them(
    settings_database, settings: Settings
) -> None:
    personal = [w * 1.1 if i < 4 else w for i, w in enumerate(GOOD)]
    text = backup_text(settings, json.dumps(personal))
    with settings_database.session() as session:
        learner = get_learner(session, settings.learner_name)
        report = restore_learner(
            session=session, learner=learner, data=text, database=settings_database
        )
        assert report.parameters_refused is None and report.settings_changed
        assert learner.fsrs_parameters == personal


def test_load_balancing_and_easy_days_travel_with_a_backup(
    settings_database, settings: Settings
) -> None:
    with settings_database.session() as session:
        learner = get_learner(session, settings.learner_name)
        learner.load_balance, learner.easy_days = True, "06"
        session.add(learner)
        commit(session)
        doc = export_learner(session=session, learner=learner)
        assert (
            doc["learner"]["settings"]["load_balance"],
            doc["learner"]["settings"]["easy_days"],
        ) == (True, "06")
        learner.load_balance, learner.easy_days = False, ""
        session.add(learner)
        commit(session)
        report = restore_learner(
            session=session, learner=learner, data=dump_backup(doc), database=settings_database
        )
        assert report.settings_changed
        assert (learner.load_balance, learner.easy_days) == (True, "06")
