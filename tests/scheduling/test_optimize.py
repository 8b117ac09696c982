"""Personal FSRS parameters through the app: counting, refusing, fitting as a job, resetting."""

import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.cli import main as cli
from app.config import Settings
from app.infra import jobs
from app.infra.db import Database, database_of
from app.infra.models import CardState, Job, Learner
from app.main import create_app
from app.practice.quiz import rate_practice, start_practice
from app.scheduling import schedule
from app.scheduling.optimize import MIN_REVIEWS, optimization_status
from app.scheduling.parameters import DEFAULT_PARAMETERS
from app.scheduling.statedoc import log_json
from app.study import (
    Filters,
    get_learner,
    next_card,
    record_review,
    undo_last,
)
from app.study.spread import spread_for
from tests.support import cards
from tests.support.banks import commit
from tests.support.pages import text_of

pytestmark = pytest.mark.storage

START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)  # a Monday morning, clear of the 04:00 rollover


def _state_json(row):  # type: ignore[no-untyped-def]
    """A card state row in the review log's JSON form (None for no row)."""
    from app.scheduling.cardstate import CardStateValue

    return log_json(CardStateValue.from_row(row)) if row is not None else None


# A bank of plain cards and a simulated learner.


def make_cards(session: Session, count: int) -> list[str]:
    return cards.make_cards(session, count, slug="sim", prefix="sim-")


class ForgetfulLearner:
    """Rates cards like someone who forgets faster than FSRS's defaults assume.

    Recall follows FSRS's own forgetting curve, but with a true stability of `factor` times the
    scheduler's estimate; a fitted model should learn that and shorten the intervals.
    """

    DECAY = -schedule.scheduler().parameters[20]
    FACTOR = 0.9 ** (1 / DECAY) - 1

    def __init__(self, seed: int, factor: float = 0.4) -> None:
        self.rng = random.Random(seed)
        self.factor = factor

    def rate(self, state: dict | None, now: datetime) -> int:
        if state is None:
            return self.rng.choices((1, 2, 3, 4), (0.25, 0.1, 0.55, 0.1))[0]
        elapsed = (now - datetime.fromisoformat(state["last_review"])).total_seconds() / 86400
        recall = (1 + self.FACTOR * elapsed / (self.factor * state["stability"])) ** self.DECAY
        if self.rng.random() >= recall:
            return 1
        return self.rng.choices((2, 3, 4), (0.15, 0.75, 0.1))[0]


def simulate(
    session: Session, learner: Learner, card_ids: list[str], *, days: int, new_per_day: int
) -> datetime:
    """Study every morning for `days` days through record_review; return the clock at the end.

    Each day: the due cards, then the day's new ones, then learning steps as they fall due,
    thirty seconds per card, until nothing is due before tomorrow.
    """
    database = database_of(session)
    model = ForgetfulLearner(seed=2025)
    states: dict[str, dict] = {}
    unseen = list(card_ids)
    now = START
    for day in range(days):
        now = START + timedelta(days=day)
        queue = [card for card, state in states.items() if state["due"] <= now.isoformat()]
        queue += unseen[:new_per_day]
        del unseen[:new_per_day]
        while queue:
            for card_id in queue:
                result = record_review(
                    session,
                    learner=learner,
                    card_id=card_id,
                    rating=model.rate(states.get(card_id), now),
                    now=now,
                    duration_ms=8000,
                    database=database,
                )
                states[card_id] = log_json(result.state)
                now += timedelta(seconds=30)
            now += timedelta(minutes=10)
            queue = [card for card, state in states.items() if state["due"] <= now.isoformat()]
    return now


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The app in local mode over the settings' database; the local learner studies."""
    app = create_app(settings)
    app.state.database.upgrade()  # before its lifespan: written to first
    with TestClient(app, follow_redirects=False, headers={"Accept-Language": "en"}) as client:
        yield client


def local_learner(session: Session, settings: Settings) -> Learner:
    return get_learner(session, settings.learner_name, settings.timezone)


# Only live study ratings count.


def test_practice_and_undone_ratings_do_not_count(
    session: Session, database: Database, make_learner
) -> None:
    learner = make_learner()
    cards = make_cards(session, 3)
    for day in range(4):  # each card: first sight, then three reviews a day apart
        for card in cards:
            record_review(
                session,
                learner=learner,
                card_id=card,
                rating=3,
                now=START + timedelta(days=day),
                database=database,
            )
    assert optimization_status(session=session, learner=learner, now=START).counted == 9

    undo_last(session, learner=learner, now=START + timedelta(days=4), database=database)
    run = start_practice(
        session,
        learner=learner,
        filters=Filters(),
        order="content",
        seconds_per_card=0,
        now=START + timedelta(days=5),
        database=database,
    )
    for card in cards:
        rate_practice(
            session,
            learner=learner,
            run=run,
            card_id=card,
            rating=1,
            now=START + timedelta(days=5),
            database=database,
        )
    status = optimization_status(session=session, learner=learner, now=START)
    assert (status.counted, status.needed, status.personal) == (8, MIN_REVIEWS, False)
    assert status.ready is False


# Refusals leave the parameters in use as they were.


def fit_from_the_page(client: TestClient) -> dict:
    """Press "fit my parameters", wait for the background fit, return its job."""
    response = client.post("/settings/optimize")
    assert (response.status_code, response.headers["location"]) == (303, "/settings#optimizer")
    jobs.wait_for_all(client.app.state.database)  # type: ignore[attr-defined]
    page = client.get("/settings").text
    job_id = re.search(r'data-job="(\d+)"', page)
    assert job_id, "the settings page names the latest fit"
    found = client.get(f"/api/jobs/{job_id[1]}")
    assert found.status_code == 200
    return found.json()


def test_too_few_reviews_are_refused_saying_how_many_are_needed(
    settings_database, settings: Settings, client: TestClient
) -> None:
    database = settings_database
    with database.session() as session:
        learner = local_learner(session, settings)
        cards = make_cards(session, 4)
        for day in range(3):
            for card in cards:
                at = START + timedelta(days=day)
                record_review(
                    session, learner=learner, card_id=card, rating=3, now=at, database=database
                )

    page = client.get("/settings").text
    assert text_of(page, "optimizer-in-use") == "The FSRS default parameters are in use."
    assert text_of(page, "optimize-reason").startswith(
        f"Not enough reviews yet: 8 of {MIN_REVIEWS}"
    )

    job = fit_from_the_page(client)
    assert (job["kind"], job["status"], job["finished"]) == ("optimize", "failed", True)
    assert job["message"] == (
        f"Not enough reviews yet: 8 of {MIN_REVIEWS}. The parameters in use were kept."
    )
    assert job["result"] == {"reason": "not_enough", "counted": 8, "needed": MIN_REVIEWS}
    page = client.get("/settings").text
    assert text_of(page, "optimize-error") == (
        f"Not enough reviews yet: 8 of {MIN_REVIEWS}. The parameters in use were kept."
    )
    page = client.get("/settings", headers={"Accept-Language": "zh"}).text
    assert text_of(page, "optimize-error") == (
        f"复习记录还不够：已有 8 次，需要 {MIN_REVIEWS} 次。原来的参数保持不变。"
    )

    result = CliRunner().invoke(cli, ["optimize"])
    assert result.exit_code == 1
    assert result.output == (
        f"error: Not enough reviews yet: 8 of {MIN_REVIEWS}. The parameters in use were kept.\n"
    )
    with database.session() as session:
        assert local_learner(session, settings).fsrs_parameters is None


def test_a_stored_parameter_set_the_model_cannot_use_schedules_with_the_defaults(
    settings_database, settings: Settings, client: TestClient
) -> None:
    database = settings_database
    with database.session() as session:
        learner = local_learner(session, settings)
        make_cards(session, 1)
        # A decay far outside the model's range, and a vector of an older FSRS's length.
        for broken in ([*DEFAULT_PARAMETERS[:20], 50.0], list(DEFAULT_PARAMETERS[:19])):
            learner.fsrs_parameters = broken
            session.add(learner)
            commit(session)
            assert text_of(client.get("/settings").text, "optimizer-in-use") == (
                "The FSRS default parameters are in use."
            )
            shown = next_card(session, learner=learner, now=START, filters=Filters())
            assert shown is not None
            spread = spread_for(session, learner=learner, card_id=shown.card.id, now=START)
            assert shown.intervals == schedule.preview(None, START, spread=spread)


def test_an_unknown_learner_is_one_line(settings: Settings) -> None:
    result = CliRunner().invoke(cli, ["optimize", "--learner", "nobody"])
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and result.output.count("\n") == 1


# Scheduling with stored parameters.


def test_stored_parameters_schedule_until_reset(settings_database, settings: Settings) -> None:
    # Halved initial stabilities (w0-w3) and growth of stability after a success (w8).
    halved = {0: 0.5, 1: 0.5, 2: 0.5, 3: 0.5, 8: 0.5}
    personal = tuple(w * halved.get(i, 1) for i, w in enumerate(DEFAULT_PARAMETERS))
    database = settings_database
    with database.session() as session:
        learner = local_learner(session, settings)
        (card,) = make_cards(session, 1)
        learner.fsrs_parameters = list(personal)
        session.add(learner)
        commit(session)

        rated = record_review(
            session, learner=learner, card_id=card, rating=3, now=START, database=database
        )
        assert rated.state.stability == pytest.approx(personal[2])
        spread = spread_for(session, learner=learner, card_id=card, now=START)
        assert rated.state != schedule.review(None, 3, START, spread=spread)

        later = START + timedelta(minutes=10)
        shown = next_card(session, learner=learner, now=later, filters=Filters())
        assert shown is not None and shown.state == rated.state
        spread = spread_for(session, learner=learner, card_id=card, now=later)
        expected = schedule.preview(shown.state, later, parameters=personal, spread=spread)
        assert shown.intervals == expected
        rated = record_review(
            session, learner=learner, card_id=card, rating=3, now=later, database=database
        )
        expected_state = schedule.review(shown.state, 3, later, parameters=personal, spread=spread)
        assert rated.state == expected_state

    result = CliRunner().invoke(cli, ["optimize", "--reset"])
    assert (result.exit_code, result.output) == (
        0,
        "learner 'local': back to the FSRS default parameters\n",
    )
    with database.session() as session:
        learner = local_learner(session, settings)
        assert (learner.fsrs_parameters, learner.fsrs_optimized_at) == (None, None)
        before = rated.state
        at = later + timedelta(days=30)
        rated = record_review(
            session, learner=learner, card_id=card, rating=3, now=at, database=database
        )
        spread = spread_for(session, learner=learner, card_id=card, now=at)
        assert rated.state == schedule.review(before, 3, at, spread=spread)
        assert rated.state != schedule.review(before, 3, at, parameters=personal, spread=spread)


# The full path: fitted from the page in the background, stored, scheduling from then on.


def test_fitted_parameters_are_stored_and_schedule_from_then_on(
    settings_database, settings: Settings, client: TestClient
) -> None:
    database = settings_database
    with database.session() as session:
        learner = local_learner(session, settings)
        # 200 cards, five new a day, studied every day for six weeks: about 1,400 ratings, of
        # which about 700 come a study day or more after the previous one.
        cards = make_cards(session, 200)
        now = simulate(session, learner, cards, days=42, new_per_day=5)
        status = optimization_status(session=session, learner=learner, now=now)
    assert status.ready and status.counted >= MIN_REVIEWS

    page = client.get("/settings").text
    assert text_of(page, "optimize-reason") == f"Ready: {status.counted} reviews to learn from."

    job = fit_from_the_page(client)
    assert job["status"] == "done", job
    result = job["result"]
    assert result["items"] == status.counted and result["stored"] is True
    # The simulated learner forgets faster than FSRS's defaults assume: the fit must help.
    assert 0 < result["after"]["log_loss"] < result["before"]["log_loss"]
    assert 0 < result["after"]["rmse_bins"] < result["before"]["rmse_bins"]
    page = client.get("/settings").text
    before, after = result["before"], result["after"]
    assert text_of(page, "optimize-report") == (
        f"Fitted on {status.counted} reviews in {result['seconds']:.2f} s. On reviews the fit had "
        f"not seen: log loss {before['log_loss']:.4f} → {after['log_loss']:.4f}, RMSE(bins) "
        f"{before['rmse_bins']:.4f} → {after['rmse_bins']:.4f}. The new parameters are better: "
        "your reviews are scheduled with them from now on."
    )
    assert text_of(page, "optimizer-in-use").startswith("Your personal parameters are in use")

    with database.session() as session:
        learner = local_learner(session, settings)
        assert learner.fsrs_parameters == result["parameters"]
        assert learner.fsrs_optimized_at is not None
        personal = tuple(learner.fsrs_parameters)

        # The buttons' intervals now come from the personal parameters.
        now += timedelta(days=3)
        shown = next_card(session, learner=learner, now=now, filters=Filters())
        assert shown is not None and shown.state is not None
        spread = spread_for(session, learner=learner, card_id=shown.card.id, now=now)
        default = schedule.preview(
            shown.state, now, desired_retention=learner.desired_retention, spread=spread
        )
        assert shown.intervals != default

        # A rating is scheduled with them too, and undo still restores the exact state before.
        before_state = shown.state
        rated = record_review(
            session,
            learner=learner,
            card_id=shown.card.id,
            rating=3,
            now=now,
            duration_ms=5000,
            database=database,
        )
        expected = schedule.review(before_state, 3, now, parameters=personal, spread=spread)
        assert rated.state == expected
        assert rated.state != schedule.review(before_state, 3, now, spread=spread)
        undo_last(session, learner=learner, now=now, database=database)
        assert _state_json(session.get(CardState, (learner.id, shown.card.id))) == log_json(
            before_state
        )

    # Fitting again on the same log changes nothing: the parameters in use were fitted on it.
    result = CliRunner().invoke(cli, ["optimize"])
    assert result.exit_code == 0, result.output
    assert re.fullmatch(
        rf"learner 'local': fitted on {status.counted} reviews in [\d.]+ s; on held-out reviews "
        r"log loss [\d.]+ → [\d.]+, RMSE\(bins\) [\d.]+ → [\d.]+: no better than the parameters "
        r"in use, which are kept\n",
        result.output,
    ), result.output
    with database.session() as session:
        assert tuple(local_learner(session, settings).fsrs_parameters or ()) == personal


def test_a_refit_is_suggested_a_month_on_once_the_log_has_grown(
    session: Session, database: Database, make_learner
) -> None:
    learner = make_learner()
    cards = make_cards(session, 4)
    for day in range(4):  # each card: first sight, then three reviews a day apart: 12 counted
        for card in cards:
            at = START + timedelta(days=day)
            record_review(
                session, learner=learner, card_id=card, rating=3, now=at, database=database
            )
    learner.fsrs_parameters = [*DEFAULT_PARAMETERS[:20], 0.2]
    learner.fsrs_optimized_at = START + timedelta(days=4)
    session.add(learner)
    session.add(Job(kind="optimize", learner_id=learner.id, status="done", result={"items": 10}))
    commit(session)

    def suggested(days: int) -> bool:
        now = START + timedelta(days=4 + days)
        return optimization_status(session=session, learner=learner, now=now).refit_suggested

    assert (suggested(10), suggested(30)) == (False, True)
    # A fit on nearly the same log is not worth repeating.
    session.add(Job(kind="optimize", learner_id=learner.id, status="done", result={"items": 11}))
    commit(session)
    assert suggested(30) is False
