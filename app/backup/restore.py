"""Merge a backup into a learner's history: idempotent, and nothing in it is lost."""

import html
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.backup.document import (
    MARK_FIELDS,
    BackupError,
    BackupIn,
    CardIn,
    MarkIn,
    PracticeIn,
    ReviewIn,
    SettingsIn,
    StateIn,
    parse_backup,
)
from app.backup.export import learner_marks, learner_states
from app.backup.interviews import interview_card_ids, restore_interviews
from app.infra.db import Database
from app.infra.models import Card, CardMark, CardState, Deck, Learner, PracticeSession, ReviewLog
from app.scheduling.parameters import BadParameters, check_parameters

# Cards a backup mentions that the bank no longer has are recreated, retired, in this deck.
PLACEHOLDER_DECK = "_restored"


@dataclass
class RestoreReport:
    reviews_added: int = 0
    reviews_present: int = 0
    states_added: int = 0
    states_updated: int = 0
    states_kept: int = 0  # the database already had a state at least as recent
    practice_added: int = 0
    placeholders: int = 0  # cards no longer in the bank, kept as retired
    left_out: int = 0  # cards not in a shared bank: their history is not restored
    settings_changed: bool = False
    # The backup's FSRS parameters, when the model cannot use them (they are not restored).
    parameters_refused: BadParameters | None = None
    marks_changed: int = 0  # cards whose suspend, bury, flag or leech marks the backup set
    interview_rows: int = 0  # interviews, mock interviews, their answers and recordings added

    @property
    def changed(self) -> bool:
        return bool(
            self.reviews_added
            or self.states_added
            or self.states_updated
            or self.practice_added
            or self.placeholders
            or self.settings_changed
            or self.marks_changed
            or self.interview_rows
        )


def restore_learner(
    *,
    database: Database,
    session: Session,
    learner: Learner,
    data: Mapping[str, Any] | str | bytes,
    new_cards: bool = True,
    recording_quota: int | None = None,
) -> RestoreReport:
    """Merge a backup into `learner`'s history in one transaction; restoring twice adds nothing.

    Cards the bank lacks are added as retired placeholders when `new_cards` (one learner's own
    bank); otherwise the history of such cards is left out: a shared bank is the content's.
    The recordings it adds must fit in `recording_quota` bytes with the learner's others
    (None: no limit); if they do not, OverQuota, and nothing is restored.
    """
    assert learner.id is not None  # a stored learner
    doc = parse_backup(data)
    report = RestoreReport()
    try:
        with database.writing(session):
            # Held to the commit, like an upload's: the quota is checked against every
            # recording stored before, in any worker, and none stored meanwhile.
            database.lock_learner(session, learner.id)
            _restore(session, learner, doc, report, new_cards, recording_quota)
    except IntegrityError as exc:
        session.rollback()
        raise BackupError(f"restore failed and changed nothing: {exc.orig}") from None
    except Exception:
        session.rollback()
        raise
    session.refresh(learner)
    return report


def _restore(
    session: Session,
    learner: Learner,
    doc: BackupIn,
    report: RestoreReport,
    new_cards: bool,
    recording_quota: int | None,
) -> None:
    """Add everything the backup holds and the database lacks, in the caller's transaction."""
    _restore_settings(learner, doc.learner.settings, report)
    session.add(learner)
    missing = _missing_cards(session, doc)
    if new_cards:
        _restore_placeholders(session, doc, missing, report)
    elif missing:
        doc = _without(doc, missing)
        report.left_out = len(missing)
    runs = _restore_practice(session, learner, doc.practice, report)
    _restore_reviews(session, learner, doc.reviews, runs, report)
    _restore_states(session, learner, doc.states, report)
    _restore_marks(session, learner, doc.marks, report)
    report.interview_rows = restore_interviews(
        session, learner, doc.interviews, doc.mocks, doc.recordings, quota=recording_quota
    )


def _restore_settings(learner: Learner, settings: SettingsIn, report: RestoreReport) -> None:
    values = settings.columns()
    values["fsrs_parameters"] = None
    if settings.fsrs_parameters is not None:
        try:
            values["fsrs_parameters"] = list(check_parameters(settings.fsrs_parameters))
        except BadParameters as exc:
            report.parameters_refused = exc
            del values["fsrs_parameters"]
    # A restore never takes back a choice: the offer only ever stops.
    chosen = settings.timezone_chosen
    if chosen is None:
        chosen = settings.timezone != "UTC"
    values["timezone_chosen"] = learner.timezone_chosen or chosen
    for name, value in values.items():
        if getattr(learner, name) != value:
            setattr(learner, name, value)
            report.settings_changed = True


def _missing_cards(session: Session, doc: BackupIn) -> list[str]:
    """The card ids the backup names that the bank does not have, in order."""
    wanted = {state.card_id for state in doc.states} | {review.card_id for review in doc.reviews}
    wanted |= {mark.card_id for mark in doc.marks}
    wanted |= interview_card_ids(doc.mocks, doc.recordings)
    # Chunked so the IN list stays under SQLite's variable limit however long the history.
    ordered = sorted(wanted)
    present: set[str] = set()
    for start in range(0, len(ordered), 500):
        chunk = ordered[start : start + 500]
        present.update(session.exec(select(Card.id).where(col(Card.id).in_(chunk))))
    return [card_id for card_id in ordered if card_id not in present]


def _without(doc: BackupIn, card_ids: list[str]) -> BackupIn:
    gone = set(card_ids)
    mocks = [
        mock.model_copy(
            update={
                "card_ids": [card_id for card_id in mock.card_ids if card_id not in gone],
                "answers": [answer for answer in mock.answers if answer.card_id not in gone],
            }
        )
        for mock in doc.mocks
    ]
    return doc.model_copy(
        update={
            "states": [state for state in doc.states if state.card_id not in gone],
            "reviews": [review for review in doc.reviews if review.card_id not in gone],
            "marks": [mark for mark in doc.marks if mark.card_id not in gone],
            "mocks": mocks,
            "recordings": [item for item in doc.recordings if item.card_id not in gone],
        }
    )


def _restore_placeholders(
    session: Session, doc: BackupIn, missing: list[str], report: RestoreReport
) -> None:
    if not missing:
        return
    deck = session.exec(select(Deck).where(Deck.slug == PLACEHOLDER_DECK)).first()
    if deck is None:
        deck = Deck(
            slug=PLACEHOLDER_DECK,
            title="Restored history (cards no longer in the bank)",
            description="Cards named by a restored backup that the content no longer has.",
            retired=True,
        )
        session.add(deck)
        session.flush()
    assert deck.id is not None
    for position, card_id in enumerate(missing):
        info = doc.cards.get(card_id, CardIn())
        question = info.question or card_id
        # A later import that brings the card id back takes this row over and un-retires it.
        session.add(
            Card(
                id=card_id,
                deck_id=deck.id,
                section=info.section,
                position=position,
                question=question,
                question_html=html.escape(question),
                answer_html="",
                question_text=question,
                retired=True,
            )
        )
    session.flush()
    report.placeholders = len(missing)


def _restore_practice(
    session: Session, learner: Learner, runs: list[PracticeIn], report: RestoreReport
) -> dict[int, int]:
    """Add the practice runs the database lacks; map each backup run id to its database id."""
    assert learner.id is not None  # a stored learner
    existing: dict[tuple[datetime, tuple[str, ...]], int] = {}
    for stored in session.exec(
        select(PracticeSession).where(PracticeSession.learner_id == learner.id)
    ):
        assert stored.id is not None  # read back from the database
        existing[(stored.started_at, tuple(stored.card_ids))] = stored.id
    mapping: dict[int, int] = {}
    for item in runs:
        key = (item.started_at, tuple(item.card_ids))
        if key not in existing:
            run = PracticeSession(
                learner_id=learner.id,
                card_ids=item.card_ids,
                position=item.position,
                seconds_per_card=item.seconds_per_card,
                label=item.label,
                started_at=item.started_at,
                finished_at=item.finished_at,
            )
            session.add(run)
            session.flush()
            assert run.id is not None  # the flush gave it one
            existing[key] = run.id
            report.practice_added += 1
        mapping[item.id] = existing[key]
    return mapping


def _restore_reviews(
    session: Session,
    learner: Learner,
    reviews: list[ReviewIn],
    runs: dict[int, int],
    report: RestoreReport,
) -> None:
    # A rating is the same rating when card, moment, grade and mode agree; ids differ per database.
    assert learner.id is not None  # a stored learner
    known = {
        (card_id, at, rating, mode)
        for card_id, at, rating, mode in session.exec(
            select(
                ReviewLog.card_id, ReviewLog.reviewed_at, ReviewLog.rating, ReviewLog.mode
            ).where(ReviewLog.learner_id == learner.id)
        )
    }
    for review in reviews:
        key = review.key()
        if key in known:
            report.reviews_present += 1
            continue
        known.add(key)
        session.add(
            ReviewLog(
                learner_id=learner.id,
                card_id=review.card_id,
                rating=review.rating,
                mode=review.mode,
                queue=review.queue,
                practice_id=runs[review.practice_id] if review.practice_id is not None else None,
                reviewed_at=review.reviewed_at,
                duration_ms=review.duration_ms,
                state_before=review.state_before.to_json() if review.state_before else None,
                state_after=review.state_after.to_json() if review.state_after else None,
                undone_at=review.undone_at,
            )
        )
        report.reviews_added += 1


def _restore_states(
    session: Session, learner: Learner, states: list[StateIn], report: RestoreReport
) -> None:
    assert learner.id is not None  # a stored learner
    existing = {row.card_id: row for row in learner_states(session, learner)}
    oldest = datetime.min.replace(tzinfo=UTC)
    for item in states:
        values = item.value().columns()
        row = existing.get(item.card_id)
        if row is None:
            session.add(
                CardState(
                    learner_id=learner.id, card_id=item.card_id, version=item.version, **values
                )
            )
            report.states_added += 1
            continue
        # Both have a schedule for this card: the one reviewed last is the current one.
        if (item.last_review or oldest) <= (row.last_review or oldest):
            report.states_kept += 1
            continue
        for name, value in values.items():
            setattr(row, name, value)
        row.version = max(row.version, item.version) + 1  # stale study forms now get a conflict
        session.add(row)
        report.states_updated += 1


def _restore_marks(
    session: Session, learner: Learner, marks: list[MarkIn], report: RestoreReport
) -> None:
    """Give each card the marks the backup has for it (they are settings, not history)."""
    assert learner.id is not None  # a stored learner
    existing = {row.card_id: row for row in learner_marks(session, learner)}
    for item in marks:
        values = {name: getattr(item, name) for name in MARK_FIELDS}
        row = existing.get(item.card_id)
        if row is None:
            row = CardMark(learner_id=learner.id, card_id=item.card_id)
        elif all(getattr(row, name) == value for name, value in values.items()):
            continue
        for name, value in values.items():
            setattr(row, name, value)
        row.updated_at = datetime.now(UTC)
        session.add(row)
        report.marks_changed += 1
