"""Personal FSRS parameters: counting, refusing, fitting, scheduling with them and resetting."""

import html
import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from fsrs.scheduler import DEFAULT_PARAMETERS
from sqlmodel import Session

from app import scheduling
from app.bank import open_engine
from app.cli import main as cli
from app.config import Settings
from app.main import create_app
from app.models import Card, CardState, Deck, Learner
from app.optimize import (
    MAX_SEQ_LEN,
    MIN_REVIEWS,
    NotEnoughReviews,
    StudyRating,
    counted_reviews,
    fsrs_review_logs,
    missing_modules,
    optimization_status,
    optimize_learner,
)
from app.practice import rate_practice, start_practice
from app.study import (
    Filters,
    get_learner,
    next_card,
    record_review,
    undo_last,
)

START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)  # a Monday morning, clear of the 04:00 rollover
EXTRA_MISSING = bool(missing_modules())
NEEDS_EXTRA = "the optimizer extra is not installed (pip install -e '.[optimizer]' torch==2.13.0)"
HAS_EXTRA = "the optimizer extra is installed here, so the refusal for too few reviews is tested"


def _state_json(row):  # type: ignore[no-untyped-def]
    """A card state row in the review log's JSON form (None for no row)."""
    from app.cardstate import CardStateValue

    return CardStateValue.from_row(row).to_json() if row is not None else None


def needs_extra() -> None:
    pytest.importorskip("torch", reason=NEEDS_EXTRA)
    if missing_modules():
        pytest.skip(NEEDS_EXTRA)


def rating(card: str, at: datetime, value: int = 3) -> StudyRating:
    return StudyRating(card, value, at, None)


# Counting what the optimizer learns from, without a database.


def test_counted_reviews_are_those_a_whole_day_after_the_previous_one() -> None:
    day = timedelta(days=1)
    ratings = [
        rating("a", START),  # first sight of a card never counts
        rating("a", START + timedelta(minutes=10)),  # same-day learning step
        rating("b", START),
        rating("a", START + day + timedelta(minutes=10)),  # exactly a day later: counts
        rating("b", START + day - timedelta(seconds=1)),  # a second short of a day
        rating("b", START + 3 * day),  # counts
    ]
    assert counted_reviews(ratings) == 2


def test_only_the_first_reviews_of_a_card_count() -> None:
    ratings = [rating("a", START + timedelta(days=n)) for n in range(MAX_SEQ_LEN + 10)]
    assert counted_reviews(ratings) == MAX_SEQ_LEN - 1


def test_cards_are_numbered_in_the_order_they_were_first_rated() -> None:
    ratings = [
        rating("zeta", START),
        rating("alpha", START + timedelta(minutes=1), 1),
        rating("zeta", START + timedelta(days=2), 4),
    ]
    logs = fsrs_review_logs(ratings)
    assert [(log.card_id, int(log.rating)) for log in logs] == [(1, 3), (2, 1), (1, 4)]
    assert logs[0].review_datetime == START


def test_mirrored_limits_are_the_optimizers_own() -> None:
    needs_extra()
    import fsrs.optimizer

    assert fsrs.optimizer.mini_batch_size == MIN_REVIEWS
    assert fsrs.optimizer.max_seq_len == MAX_SEQ_LEN


# A bank of plain cards and a simulated learner.


def make_cards(session: Session, count: int) -> list[str]:
    deck = Deck(slug="sim", title="Simulated", path="decks/sim.md")
    session.add(deck)
    session.flush()
    ids = [f"sim-{n:03d}" for n in range(count)]
    session.add_all(
        Card(
            id=card_id,
            deck_id=deck.id,
            position=n,
            question=f"Question {n}",
            question_html=f"<p>Question {n}</p>",
            answer_html=f"<p>Answer {n}</p>",
        )
        for n, card_id in enumerate(ids)
    )
    session.commit()
    return ids


class ForgetfulLearner:
    """Rates cards like someone who forgets faster than FSRS's defaults assume.

    Recall follows FSRS's own forgetting curve, but with a true stability of `factor` times the
    scheduler's estimate; a fitted model should learn that and shorten the intervals.
    """

    DECAY = -scheduling.scheduler().parameters[20]
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
                )
                states[card_id] = result.state.to_json()
                now += timedelta(seconds=30)
            now += timedelta(minutes=10)
            queue = [card for card, state in states.items() if state["due"] <= now.isoformat()]
    return now


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The app in local mode over the settings' database; the local learner studies."""
    app = create_app(settings)
    with TestClient(app, follow_redirects=False, headers={"Accept-Language": "en"}) as client:
        yield client


def local_learner(session: Session, settings: Settings) -> Learner:
    return get_learner(session, settings.learner_name, settings.timezone)


def text_of(page: str, element_id: str) -> str:
    """The text inside the element with `element_id`, whitespace collapsed."""
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</', page, re.S)
    assert match, f"no #{element_id} on the page"
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", match.group(1))).split())


# Only live study ratings count.


def test_practice_and_undone_ratings_do_not_count(session: Session, make_learner) -> None:
    learner = make_learner()
    cards = make_cards(session, 3)
    for day in range(4):  # each card: first sight, then three reviews a day apart
        for card in cards:
            record_review(
                session, learner=learner, card_id=card, rating=3, now=START + timedelta(days=day)
            )
    assert optimization_status(session=session, learner=learner).counted == 9

    undo_last(session, learner=learner, now=START + timedelta(days=4))
    run = start_practice(
        session,
        learner=learner,
        filters=Filters(),
        order="content",
        seconds_per_card=0,
        now=START + timedelta(days=5),
    )
    for card in cards:
        rate_practice(
            session, learner=learner, run=run, card_id=card, rating=1, now=START + timedelta(days=5)
        )
    status = optimization_status(session=session, learner=learner)
    assert (status.counted, status.needed, status.personal) == (8, MIN_REVIEWS, False)
    assert status.ready is False


# Refusals: without the extra, or with too few reviews.


@pytest.mark.skipif(not EXTRA_MISSING, reason=HAS_EXTRA)
def test_without_the_extra_the_cli_says_how_to_enable_it(settings: Settings) -> None:
    result = CliRunner().invoke(cli, ["optimize"])
    assert result.exit_code == 1
    assert result.output.startswith("error: install qbank[optimizer] to enable this: pip install")
    assert result.output.count("\n") == 1


@pytest.mark.skipif(not EXTRA_MISSING, reason=HAS_EXTRA)
def test_without_the_extra_the_settings_page_says_how_to_enable_it(client: TestClient) -> None:
    page = client.get("/settings").text
    assert "pip install 'qbank[optimizer]'" in text_of(page, "optimize-reason")
    assert re.search(r'<button[^>]*aria-describedby="optimize-reason"[^>]* disabled', page)

    response = client.post("/settings/optimize")
    assert response.status_code == 400
    assert text_of(response.text, "optimize-error").startswith(
        "install qbank[optimizer] to enable this"
    )


def test_too_few_reviews_are_refused_saying_how_many_are_needed(
    settings: Settings, client: TestClient
) -> None:
    engine = open_engine(settings)
    with Session(engine) as session:
        learner = local_learner(session, settings)
        cards = make_cards(session, 4)
        for day in range(3):
            for card in cards:
                at = START + timedelta(days=day)
                record_review(session, learner=learner, card_id=card, rating=3, now=at)

    page = client.get("/settings").text
    assert text_of(page, "optimizer-in-use") == "The FSRS default parameters are in use."
    reason = text_of(page, "optimize-reason")
    if EXTRA_MISSING:
        assert "qbank[optimizer]" in reason
        return  # the tests above check the refusal without the extra
    assert reason.startswith(f"Not enough reviews yet: 8 of {MIN_REVIEWS}")

    response = client.post("/settings/optimize")
    assert response.status_code == 409
    assert text_of(response.text, "optimize-error").startswith(
        f"not enough reviews to fit personal parameters yet: 8 of the {MIN_REVIEWS} needed"
    )

    result = CliRunner().invoke(cli, ["optimize"])
    assert result.exit_code == 1
    assert result.output == (
        f"error: not enough reviews to fit personal parameters yet: 8 of the {MIN_REVIEWS} "
        "needed (only ratings a day or more after the card's previous one count)\n"
    )
    with Session(engine) as session, pytest.raises(NotEnoughReviews):
        learner = local_learner(session, settings)
        optimize_learner(session=session, learner=learner, now=START)


def test_an_unknown_learner_is_one_line(settings: Settings) -> None:
    result = CliRunner().invoke(cli, ["optimize", "--learner", "nobody"])
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and result.output.count("\n") == 1


# Scheduling with stored parameters needs no optimizer.


def test_stored_parameters_schedule_until_reset(settings: Settings) -> None:
    # Halved initial stabilities (w0-w3) and growth of stability after a success (w8).
    halved = {0: 0.5, 1: 0.5, 2: 0.5, 3: 0.5, 8: 0.5}
    personal = tuple(w * halved.get(i, 1) for i, w in enumerate(DEFAULT_PARAMETERS))
    engine = open_engine(settings)
    with Session(engine) as session:
        learner = local_learner(session, settings)
        (card,) = make_cards(session, 1)
        learner.fsrs_parameters = list(personal)
        session.add(learner)
        session.commit()

        rated = record_review(session, learner=learner, card_id=card, rating=3, now=START)
        assert rated.state.stability == pytest.approx(personal[2])
        assert rated.state != scheduling.review(None, 3, START)

        later = START + timedelta(minutes=10)
        shown = next_card(session, learner=learner, now=later, filters=Filters())
        assert shown is not None and shown.state == rated.state
        assert shown.intervals == scheduling.preview(shown.state, later, parameters=personal)
        rated = record_review(session, learner=learner, card_id=card, rating=3, now=later)
        assert rated.state == scheduling.review(shown.state, 3, later, parameters=personal)

    result = CliRunner().invoke(cli, ["optimize", "--reset"])
    assert (result.exit_code, result.output) == (
        0,
        "learner 'local': back to the FSRS default parameters\n",
    )
    with Session(engine) as session:
        learner = local_learner(session, settings)
        assert (learner.fsrs_parameters, learner.fsrs_optimized_at) == (None, None)
        before = rated.state
        at = later + timedelta(days=30)
        rated = record_review(session, learner=learner, card_id=card, rating=3, now=at)
        assert rated.state == scheduling.review(before, 3, at)
        assert rated.state != scheduling.review(before, 3, at, parameters=personal)


# The full path, with the optimizer installed.


def test_fitted_parameters_are_stored_and_schedule_from_then_on(
    settings: Settings, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_extra()
    import fsrs.optimizer

    # Two passes over the log instead of five keep this test quick; the optimizer still keeps
    # its best epoch, and the app still stores only parameters that beat those in use.
    monkeypatch.setattr(fsrs.optimizer, "num_epochs", 2)
    engine = open_engine(settings)
    with Session(engine) as session:
        learner = local_learner(session, settings)
        # 200 cards, five new a day, studied every day for six weeks: about 1,400 ratings, of
        # which about 700 come a day or more after the previous one (the optimizer needs 512).
        cards = make_cards(session, 200)
        now = simulate(session, learner, cards, days=42, new_per_day=5)
        status = optimization_status(session=session, learner=learner)
    assert status.ready and status.counted >= MIN_REVIEWS

    page = client.get("/settings").text
    assert text_of(page, "optimize-reason") == f"Ready: {status.counted} reviews to learn from."

    result = CliRunner().invoke(cli, ["optimize"])
    assert result.exit_code == 0, result.output
    match = re.fullmatch(
        r"learner 'local': fitted on (\d+) of (\d+) reviews; log loss ([\d.]+) before, "
        r"([\d.]+) after: stored; reviews are scheduled with them from now on\n",
        result.output,
    )
    assert match, result.output
    assert int(match[1]) == status.counted
    before, after = float(match[3]), float(match[4])
    # The simulated learner forgets faster than FSRS's defaults assume: the fit must help.
    assert 0 < after < before

    with Session(engine) as session:
        learner = local_learner(session, settings)
        assert learner.fsrs_parameters is not None and len(learner.fsrs_parameters) == 21
        assert learner.fsrs_optimized_at is not None
        personal = tuple(learner.fsrs_parameters)

        # The buttons' intervals now come from the personal parameters.
        now += timedelta(days=3)
        shown = next_card(session, learner=learner, now=now, filters=Filters())
        assert shown is not None and shown.state is not None
        default = scheduling.preview(shown.state, now, desired_retention=learner.desired_retention)
        assert shown.intervals != default

        # A rating is scheduled with them too, and undo still restores the exact state before.
        before_state = shown.state
        rated = record_review(
            session, learner=learner, card_id=shown.card.id, rating=3, now=now, duration_ms=5000
        )
        expected = scheduling.review(before_state, 3, now, parameters=personal)
        assert rated.state == expected
        assert rated.state != scheduling.review(before_state, 3, now)
        undo_last(session, learner=learner, now=now)
        assert (
            _state_json(session.get(CardState, (learner.id, shown.card.id)))
            == before_state.to_json()
        )

    # Fitting again on the same log finds the same parameters: nothing to gain, nothing stored.
    response = client.post("/settings/optimize")
    assert response.status_code == 200
    assert text_of(response.text, "optimize-report") == (
        f"Fitted on {status.counted} reviews: log loss {after:.4f} → {after:.4f}, no better, "
        "so the parameters in use were kept."
    )
    assert text_of(response.text, "optimizer-in-use").startswith(
        "Your personal parameters are in use"
    )
    with Session(engine) as session:
        assert tuple(local_learner(session, settings).fsrs_parameters or ()) == personal

    response = client.post("/settings/optimize/reset")
    assert (response.status_code, response.headers["location"]) == (303, "/settings?reset=1")
    page = client.get("/settings?reset=1").text
    assert text_of(page, "optimizer-in-use") == "The FSRS default parameters are in use."
    with Session(engine) as session:
        learner = local_learner(session, settings)
        assert (learner.fsrs_parameters, learner.fsrs_optimized_at) == (None, None)
        shown = next_card(session, learner=learner, now=now, filters=Filters())
        assert shown is not None
        assert shown.intervals == scheduling.preview(shown.state, now)
