"""Interviews, mock interviews and their recordings in a learner's backup, and back.

Recordings go in while their total stays under RECORDINGS_BUDGET (base64 text); beyond it the
backup says how many it left out, so a backup stays a file one can mail or keep in git.
A restore keeps the limits an upload does: the recordings it adds must fit the learner's quota
(else nothing is restored), and unfinished mock interviews past MAX_UNFINISHED come back ended.
"""

import base64
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from app.backup.document import InterviewIn, MockIn, RecordingIn, iso
from app.infra.models import Interview, Learner, MockAnswer, MockSession, Recording
from app.interview.mock import MAX_UNFINISHED
from app.interview.recordings import check_audio, check_room

RECORDINGS_BUDGET = 32 * 1024 * 1024


def export_interviews(session: Session, learner: Learner) -> dict[str, Any]:
    """The learner's interviews, mock interviews with their answers, and recordings that fit."""
    interviews = session.exec(
        select(Interview).where(Interview.learner_id == learner.id).order_by(col(Interview.id))
    )
    mocks = list(
        session.exec(
            select(MockSession)
            .where(MockSession.learner_id == learner.id)
            .order_by(col(MockSession.id))
        )
    )
    answers: dict[int | None, list[MockAnswer]] = {}  # looked up by MockSession.id
    for answer in session.exec(
        select(MockAnswer)
        .where(col(MockAnswer.mock_id).in_([m.id for m in mocks]))
        .order_by(col(MockAnswer.position))
    ):
        answers.setdefault(answer.mock_id, []).append(answer)
    recordings, left_out, budget = [], 0, RECORDINGS_BUDGET
    for recording in session.exec(
        select(Recording).where(Recording.learner_id == learner.id).order_by(col(Recording.id))
    ):
        size = (recording.size + 2) // 3 * 4
        if size > budget:
            left_out += 1
            continue
        budget -= size
        recordings.append(
            {
                "mock_id": recording.mock_id,
                "card_id": recording.card_id,
                "type": recording.mime,
                "data": base64.b64encode(recording.data).decode("ascii"),
                "created_at": iso(recording.created_at),
            }
        )
    return {
        "interviews": [
            {
                "name": i.name,
                "date": i.day.isoformat(),
                "deck": i.deck,
                "section": i.section,
                "tag": i.tag,
                "folder": i.folder,
                "target": i.target,
            }
            for i in interviews
        ],
        "mocks": [
            {
                "id": m.id,
                "card_ids": m.card_ids,
                "position": m.position,
                "seconds_per_question": m.seconds_per_question,
                "followup_seconds": m.followup_seconds,
                "order": m.order,
                "label": m.label,
                "started_at": iso(m.started_at),
                "finished_at": iso(m.finished_at),
                "answers": [
                    {
                        "card_id": a.card_id,
                        "position": a.position,
                        "answer_ms": a.answer_ms,
                        "total_ms": a.total_ms,
                        "limit_ms": a.limit_ms,
                        "points_total": a.points_total,
                        "points_said": a.points_said,
                        "followups_total": a.followups_total,
                        "followups_answered": a.followups_answered,
                        "rating": a.rating,
                        "counted": a.counted,
                        "answered_at": iso(a.answered_at),
                    }
                    for a in answers.get(m.id, [])
                ],
            }
            for m in mocks
        ],
        "recordings": recordings,
        "recordings_left_out": left_out,
    }


def interview_card_ids(mocks: list[MockIn], recordings: list[RecordingIn]) -> set[str]:
    """The cards a backup's mock interviews name (restored as placeholders when gone)."""
    found = {a.card_id for m in mocks for a in m.answers} | {r.card_id for r in recordings}
    return found | {card_id for m in mocks for card_id in m.card_ids}


def restore_interviews(
    session: Session,
    learner: Learner,
    interviews: list[InterviewIn],
    mocks: list[MockIn],
    recordings: list[RecordingIn],
    *,
    quota: int | None,
) -> int:
    """Add what the database lacks (restoring twice adds nothing); return how many rows.

    `quota`: the bytes the learner's recordings may take (None: no limit), checked in the
    caller's transaction, which holds the learner's lock.
    """
    assert learner.id is not None  # a stored learner
    added = _restore_plans(session, learner.id, interviews)
    mapping, runs = _restore_mocks(session, learner.id, mocks)
    new = _new_recordings(session, learner.id, recordings, mapping)
    if quota is not None and new:
        adding = sum(recording.size for recording in new)
        check_room(session, learner=learner, adding=adding, quota=quota, key="limits.restore_full")
    session.add_all(new)
    return added + runs + len(new)


def _restore_plans(session: Session, learner_id: int, interviews: list[InterviewIn]) -> int:
    """Add the dated interviews the learner lacks; how many."""
    added = 0
    have = {
        (i.name, i.day, i.deck, i.section, i.tag, i.folder)
        for i in session.exec(select(Interview).where(Interview.learner_id == learner_id))
    }
    for item in interviews:
        key = (item.name, item.date, item.deck, item.section, item.tag, item.folder)
        if key in have:
            continue
        have.add(key)
        session.add(
            Interview(
                learner_id=learner_id,
                name=item.name,
                day=item.date,
                deck=item.deck,
                section=item.section,
                tag=item.tag,
                folder=item.folder,
                target=item.target,
            )
        )
        added += 1
    return added


def _restore_mocks(
    session: Session, learner_id: int, mocks: list[MockIn]
) -> tuple[dict[int, int], int]:
    """Add the mock runs and answers the learner lacks: the backup's run ids to ours, and how
    many rows were added."""
    added = 0
    existing: dict[tuple[datetime, tuple[str, ...]], int] = {}
    for m in session.exec(select(MockSession).where(MockSession.learner_id == learner_id)):
        assert m.id is not None  # read back from the database
        existing[(m.started_at, tuple(m.card_ids))] = m.id
    mapping: dict[int, int] = {}
    open_runs = len(
        session.exec(
            select(MockSession.id).where(
                MockSession.learner_id == learner_id, col(MockSession.finished_at).is_(None)
            )
        ).all()
    )
    for mock_in in mocks:
        run_key = (mock_in.started_at, tuple(mock_in.card_ids))
        if run_key in existing:
            mapping[mock_in.id] = existing[run_key]
            continue
        finished_at = mock_in.finished_at
        if finished_at is None:
            if open_runs >= MAX_UNFINISHED:
                finished_at = max([a.answered_at for a in mock_in.answers] or [mock_in.started_at])
            else:
                open_runs += 1
        run = MockSession(
            learner_id=learner_id,
            card_ids=mock_in.card_ids,
            position=mock_in.position,
            seconds_per_question=mock_in.seconds_per_question,
            followup_seconds=mock_in.followup_seconds,
            order=mock_in.order,
            label=mock_in.label,
            started_at=mock_in.started_at,
            finished_at=finished_at,
        )
        session.add(run)
        session.flush()
        assert run.id is not None  # the flush gave it one
        existing[run_key] = mapping[mock_in.id] = run.id
        added += 1
        for answer in mock_in.answers:
            values = answer.model_dump()
            values["answered_at"] = answer.answered_at
            session.add(MockAnswer(mock_id=run.id, **values))
            added += 1
    return mapping, added


def _new_recordings(
    session: Session, learner_id: int, recordings: list[RecordingIn], mapping: dict[int, int]
) -> list[Recording]:
    """The recordings the learner lacks, not yet added (the caller checks the quota first)."""
    kept = {
        (r[0], r[1])
        for r in session.exec(
            select(Recording.mock_id, Recording.card_id).where(Recording.learner_id == learner_id)
        )
    }
    new: list[Recording] = []
    for recording_in in recordings:
        mock_id = mapping[recording_in.mock_id]
        if (mock_id, recording_in.card_id) in kept:
            continue
        kept.add((mock_id, recording_in.card_id))
        data = base64.b64decode(recording_in.data)
        new.append(
            Recording(
                learner_id=learner_id,
                mock_id=mock_id,
                card_id=recording_in.card_id,
                mime=check_audio(recording_in.type, data),
                size=len(data),
                data=data,
                created_at=recording_in.created_at,
            )
        )
    return new
