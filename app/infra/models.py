"""Database tables: the shared question bank and each learner's private schedule."""

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Index,
    LargeBinary,
    Table,
    Text,
    UniqueConstraint,
    false,
    inspect,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

from app.infra import searchdb, seencount


def utcnow() -> datetime:
    return datetime.now(UTC)


class TZDateTime(TypeDecorator[datetime]):
    """A moment in UTC on every database: aware in, aware out.

    PostgreSQL keeps the offset; SQLite stores the text without one and hands back naive
    datetimes, so moments go in converted to UTC and come out marked as UTC.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is None:
            return value  # naive: UTC already, as SQLite handed it out
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        # PostgreSQL answers in the session's zone: the same moment, given in UTC here.
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def table_of(model: type[SQLModel]) -> Table:
    """The Core table a `table=True` model maps to, for statements SQLModel does not build."""
    table = inspect(model).local_table
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} is not mapped to a table")
    return table


def _tz(**kwargs: Any) -> Any:
    return Field(sa_type=TZDateTime, **kwargs)


# PostgreSQL cannot index a value of more than about 2,700 bytes (a third of a page), and a
# note supplies the keys of the content tables (its path, ids, slugs): each is held to this many
# bytes of UTF-8 on both databases by the import (app.content.bank.limits), which reads the limit
# from the column's `info`, before anything is written. A title is held to a length a page can
# show; its column has no limit of its own.
KEY_BYTES = 1024
TITLE_CHARS = 500


def _limited(*, max_bytes: int | None = None, max_chars: int | None = None, **kwargs: Any) -> Any:
    """A string column whose content notes supply, with the limit the import holds it to."""
    info = {"max_bytes": max_bytes} if max_bytes else {"max_chars": max_chars}
    return Field(sa_column_kwargs={"info": info}, **kwargs)


class SourceFile(SQLModel, table=True):
    """A content file as last imported; its hash decides whether it is re-read."""

    path: str = _limited(max_bytes=KEY_BYTES, primary_key=True)
    kind: str
    sha256: str
    # Size and modification time as last read (app.content.notes.source.stamp): a file whose stamp
    # is unchanged is not read and hashed again. Empty: read it.
    stamp: str = Field(default="", sa_column_kwargs={"server_default": text("''")})
    imported_at: datetime = _tz(default_factory=utcnow)


class BankInfo(SQLModel, table=True):
    """One row: the bank's generation, which every import that changes content moves on.

    Servers cache what they render from the bank (card payloads) per generation, so every
    process sees an import on its next request without re-reading unchanged cards.
    """

    id: int = Field(default=1, primary_key=True)
    generation: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class Deck(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    slug: str = _limited(max_bytes=KEY_BYTES, unique=True, index=True)
    title: str = _limited(max_chars=TITLE_CHARS)
    description: str = ""
    intro_html: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    language: str = "zh"
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    path: str = ""
    retired: bool = False
    # Active cards in the deck, kept by imports (app.content.bank.store.number_cards), so the study
    # queue need not count thousands of card rows on every request.
    card_count: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


def _added_text() -> Any:
    """A text column added to a table that had rows: empty for them."""
    return Field(
        default="", sa_column=Column(Text, nullable=False, default="", server_default=text("''"))
    )


def _added_json(empty: type[list[Any]] | type[dict[str, Any]]) -> Any:
    """A JSON column added to a table that had rows (its migration gave them an empty one)."""
    # No server default: PostgreSQL cannot compare JSON values, which schema checks need.
    return Field(default_factory=empty, sa_column=Column(JSON, nullable=False, default=empty))


# What a card asks: a question (basic), a deletion in a block (cloze), or one way of a pair
# written `term ::: definition` (reversed).
CARD_KINDS = ("basic", "cloze", "reversed")


class Card(SQLModel, table=True):
    # The study queue walks new cards in content order along this index, stopping at the first
    # one the learner has not seen, instead of sorting the whole bank on every request.
    __table_args__ = (Index("ix_card_content_order", "retired", "ordinal", "deck_id"),)

    # Stable across edits, moves and renames: learners' history hangs off this id.
    id: str = _limited(max_bytes=KEY_BYTES, primary_key=True)
    deck_id: int = Field(foreign_key="deck.id", index=True)
    section: str = ""
    position: int = 0  # within its deck
    # Place in the whole bank's content order (deck path, then position), renumbered by imports.
    ordinal: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    question: str
    question_html: str = Field(sa_column=Column(Text, nullable=False))
    answer_html: str = Field(sa_column=Column(Text, nullable=False))
    followups_html: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    pitfalls_html: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    # The other forms the import compiles the card into, read instead of parsing the HTML:
    # plain text for search (formulas readable), the answer's key points for mock interviews,
    # and the Anki fields (formulas as TeX for Anki's MathJax) with the images they show.
    question_text: str = _added_text()
    answer_text: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    extra_text: str = _added_text()  # follow-ups (questions and prose) and pitfalls
    # Each a list of [start, end, joint] pieces of answer_html (app.content.compile.points).
    key_points: list[Any] = _added_json(list)
    anki_fields: dict[str, str] = _added_json(dict)  # question, answer, followups, pitfalls
    anki_media: dict[str, str] = _added_json(dict)  # Anki media name: content-relative path
    formula_count: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # basic | cloze | reversed. A cloze card's front is a block (front_html); its question_html
    # is then a one-line title for lists, and its answer_html the block with the deletion marked.
    # A basic card's front_html is its stem, the code its question asks about, shown under it.
    kind: str = Field(default="basic", max_length=16, sa_column_kwargs={"server_default": "basic"})
    front_html: str = _added_text()
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    source_path: str = ""
    source_line: int = 0
    content_hash: str = ""
    retired: bool = Field(default=False, index=True)
    updated_at: datetime = _tz(default_factory=utcnow)


class CardLink(SQLModel, table=True):
    """A continue-reading entry of a card, resolved to a topic when one matches."""

    id: int | None = Field(default=None, primary_key=True)
    card_id: str = Field(foreign_key="card.id", index=True)
    position: int = 0
    title: str
    target: str  # topic title/alias/slug as written, or an external URL
    external: bool = False
    topic_slug: str | None = Field(default=None, index=True)


class Followup(SQLModel, table=True):
    """A follow-up question of a card, with its answer: what an interviewer asks next."""

    # Explicit ({#id}) or the card's id and the question's place (`<card id>.f<n>`).
    id: str = _limited(max_bytes=KEY_BYTES, primary_key=True)
    card_id: str = Field(foreign_key="card.id", index=True)
    position: int = 0
    question_html: str = Field(sa_column=Column(Text, nullable=False))
    answer_html: str = Field(sa_column=Column(Text, nullable=False))
    question_anki: str = _added_text()
    answer_anki: str = _added_text()
    source_line: int = 0


class Topic(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    slug: str = _limited(max_bytes=KEY_BYTES, unique=True, index=True)
    title: str = _limited(max_chars=TITLE_CHARS)
    aliases: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    summary: str = ""
    body_html: str = Field(sa_column=Column(Text, nullable=False))
    # The body's plain text by group, as its level-2 headings divide it: what search matches.
    body_text: str = _added_text()
    extra_text: str = _added_text()
    reading_text: str = _added_text()
    path: str = ""


def _text() -> Any:
    return Field(default="", sa_column=Column(Text, nullable=False, default=""))


class SearchEntry(SQLModel, table=True):
    """One card's or topic's search text, per field group, as displayed and folded for matching.

    Written at import (app.content.bank.searchindex); app.content.compile.searchtext folds it.
    """

    __table_args__ = (UniqueConstraint("kind", "key"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: str  # card | topic
    key: str  # the card's id or the topic's slug
    deck_id: int | None = Field(default=None, foreign_key="deck.id", index=True)
    ordinal: int = 0  # content order, to break ties
    source_hash: str = ""  # what the entry was made from, to remake only what changed
    label: str = _text()  # the title as shown in results
    title: str = _text()
    body: str = _text()
    extra: str = _text()
    reading: str = _text()
    title_folded: str = _text()
    body_folded: str = _text()
    extra_folded: str = _text()
    reading_folded: str = _text()


searchdb.attach(table_of(SearchEntry))


class Learner(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    timezone: str = "UTC"
    desired_retention: float = 0.9
    new_per_day: int = 20
    max_reviews_per_day: int = 200
    rollover_hour: int = 4
    created_at: datetime = _tz(default_factory=utcnow)
    # Personal FSRS parameters fitted from the learner's own log (app.scheduling.optimize); None:
    # defaults.
    fsrs_parameters: list[float] | None = Field(
        default=None, sa_column=Column(JSON(none_as_null=True))
    )
    fsrs_optimized_at: datetime | None = _tz(default=None, nullable=True)
    # Accounts (team mode); the local learner has no password.
    password_hash: str | None = None
    # Server defaults as migration 0002 gave them to existing rows, so that a database created
    # from these models and one migrated from before accounts have the same schema.
    is_admin: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    disabled: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    # Every active card before this place in content order (card.ordinal) has a state: the
    # study queue looks for the next new card from here instead of walking past every card
    # the learner has seen. Kept by ratings and undos (app.study), reset by imports.
    new_cursor: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # Spread due dates within the fuzz range to even out the daily load
    # (app.scheduling.schedule.Spread),
    # keeping the weekdays in `easy_days` (digits, 0 = Monday: "56" is the weekend) lighter.
    load_balance: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    easy_days: str = Field(default="", sa_column_kwargs={"server_default": text("''")})
    # Leeches (app.study.marks): a card lapsing this often is marked, and suspended unless the
    # action is "tag".
    leech_threshold: int = Field(default=8, sa_column_kwargs={"server_default": "8"})
    leech_action: str = Field(default="suspend", sa_column_kwargs={"server_default": "suspend"})
    # Custom study: this many more new cards on the study day `extra_new_day` only.
    extra_new: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    extra_new_day: date | None = None
    # Whether the learner chose their zone (until then the pages offer the browser's).
    timezone_chosen: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class CardState(SQLModel, table=True):
    """A learner's FSRS state for one card; absent until the card is first studied."""

    __table_args__ = (
        Index("ix_cardstate_learner_due", "learner_id", "due"),
        # The study queue counts and picks a learner's due cards per state: with the card id,
        # everything it reads is in this index, however many cards are due.
        Index("ix_cardstate_learner_state_due", "learner_id", "state", "due", "card_id"),
        # Who studied a card: app.infra.seencount's trigger when an import moves or retires it.
        Index("ix_cardstate_card", "card_id"),
    )

    learner_id: int = Field(foreign_key="learner.id", primary_key=True)
    card_id: str = Field(foreign_key="card.id", primary_key=True)
    state: int  # fsrs.State: 1 learning, 2 review, 3 relearning
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due: datetime = _tz()
    last_review: datetime | None = _tz(default=None, nullable=True)
    reps: int = 0
    lapses: int = 0
    version: int = 0  # bumped on every change; guards against double submissions


class SeenCount(SQLModel, table=True):
    """How many of a deck's active cards a learner has studied (kept by app.infra.seencount)."""

    learner_id: int = Field(foreign_key="learner.id", primary_key=True)
    deck_id: int = Field(foreign_key="deck.id", primary_key=True)
    seen: int = 0


seencount.attach(SQLModel.metadata)


class CardMark(SQLModel, table=True):
    """A learner's own marks on a card (suspended, buried, flag, leech); absent: none."""

    __table_args__ = (
        # The browse lists of flagged cards.
        Index("ix_cardmark_learner_flag", "learner_id", "flag"),
    )

    learner_id: int = Field(foreign_key="learner.id", primary_key=True)
    card_id: str = Field(foreign_key="card.id", primary_key=True)
    suspended: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    # Out of the study queue until this moment, the start of the learner's next study day.
    buried_until: datetime | None = _tz(default=None, nullable=True)
    flag: int = Field(default=0, sa_column_kwargs={"server_default": "0"})  # 0: none, 1-7
    leech: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    updated_at: datetime = _tz(default_factory=utcnow)


class ReviewLog(SQLModel, table=True):
    """Append-only: every rating ever given, with the state before and after it."""

    __table_args__ = (
        Index("ix_reviewlog_learner_time", "learner_id", "reviewed_at"),
        # The daily limits count today's study ratings per queue on every study request: all
        # they read is in this index.
        Index("ix_reviewlog_study_day", "learner_id", "mode", "queue", "reviewed_at", "undone_at"),
        # A rating or an undo sent again with the same key is answered from its entry.
        Index("ix_reviewlog_idempotency_key", "learner_id", "idempotency_key", unique=True),
        Index("ix_reviewlog_undo_key", "learner_id", "undo_key", unique=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    # Looked up through the two indexes above, which start with it: an index of its own would
    # only be one more to update on every rating.
    learner_id: int = Field(foreign_key="learner.id")
    card_id: str = Field(foreign_key="card.id", index=True)
    rating: int
    mode: str = "study"  # study | practice (practice never moves the schedule)
    queue: str = "new"  # what the card was before this rating: new | learning | review | relearning
    practice_id: int | None = Field(default=None, foreign_key="practicesession.id", index=True)
    reviewed_at: datetime = _tz()
    duration_ms: int | None = None
    state_before: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    state_after: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    # Undo marks the entry instead of deleting it, so the log stays complete.
    undone_at: datetime | None = _tz(default=None, nullable=True)
    # The client's Idempotency-Key of the rating, and of the undo that marked it undone.
    idempotency_key: str | None = Field(default=None, max_length=100)
    undo_key: str | None = Field(default=None, max_length=100)


class PracticeSession(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    learner_id: int = Field(foreign_key="learner.id", index=True)
    card_ids: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    position: int = 0
    seconds_per_card: int = 0
    label: str = ""
    started_at: datetime = _tz(default_factory=utcnow)
    finished_at: datetime | None = _tz(default=None, nullable=True)

    __table_args__ = (UniqueConstraint("id", "learner_id"),)


class AuthSession(SQLModel, table=True):
    """A signed-in browser; the cookie holds the token, the database only its hash."""

    id: str = Field(primary_key=True)  # sha256 of the session token
    learner_id: int = Field(foreign_key="learner.id", index=True)
    csrf_token: str
    created_at: datetime = _tz(default_factory=utcnow)
    expires_at: datetime = _tz()


class Invite(SQLModel, table=True):
    id: str = Field(primary_key=True)  # sha256 of the invite token
    created_by: int = Field(foreign_key="learner.id")
    is_admin: bool = False
    created_at: datetime = _tz(default_factory=utcnow)
    expires_at: datetime = _tz()
    used_at: datetime | None = _tz(default=None, nullable=True)
    used_by: int | None = Field(default=None, foreign_key="learner.id")


class ApiToken(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    learner_id: int = Field(foreign_key="learner.id", index=True)
    name: str
    token_hash: str = Field(unique=True, index=True)
    prefix: str  # the first characters, to tell tokens apart in the UI
    created_at: datetime = _tz(default_factory=utcnow)
    last_used_at: datetime | None = _tz(default=None, nullable=True)
    revoked_at: datetime | None = _tz(default=None, nullable=True)


class LoginThrottle(SQLModel, table=True):
    """Password checks per account and per address in the current window (app.accounts.throttle).

    In the database, so that the limit holds across processes; one row per key, counted by a
    single upsert, so that it holds under any concurrency.
    """

    key: str = Field(primary_key=True)  # "account:<name>" or "client:<address>"
    window_start: datetime = _tz()
    attempts: int


class Job(SQLModel, table=True):
    """Work that outlasts a request (app.infra.jobs): run in a thread, its progress kept here."""

    __table_args__ = (
        Index("ix_job_learner_kind", "learner_id", "kind", "id"),
        # "kind:learner" while queued or running, NULL once finished: NULLs never collide, so
        # the database itself allows one unfinished job per kind and learner.
        Index("ix_job_active_key", "active_key", unique=True),
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str
    learner_id: int | None = Field(default=None, foreign_key="learner.id")
    status: str = "queued"  # queued | running | done | failed
    message: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    result: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON(none_as_null=True)))
    active_key: str | None = None
    created_at: datetime = _tz(default_factory=utcnow)
    started_at: datetime | None = _tz(default=None, nullable=True)
    finished_at: datetime | None = _tz(default=None, nullable=True)


class Interview(SQLModel, table=True):
    """An interview a learner prepares for: its day and the cards it may ask about."""

    id: int | None = Field(default=None, primary_key=True)
    learner_id: int = Field(foreign_key="learner.id", index=True)
    name: str = Field(max_length=200)
    day: date  # in the learner's own calendar
    deck: str | None = Field(default=None, max_length=200)
    section: str | None = Field(default=None, max_length=500)
    tag: str | None = Field(default=None, max_length=200)
    folder: str | None = Field(default=None, max_length=500)  # a folder of notes, and below it
    target: float = 0.9  # the predicted recall on the day that counts as ready
    created_at: datetime = _tz(default_factory=utcnow)


class StudyPin(SQLModel, table=True):
    """A card the study queue serves first on one day: an interview's plan, or a mock's misses."""

    learner_id: int = Field(foreign_key="learner.id", primary_key=True)
    day: date = Field(primary_key=True)
    card_id: str = Field(foreign_key="card.id", primary_key=True)
    position: int = 0
    source: str = "plan"  # plan | mock


class DayPlan(SQLModel, table=True):
    """Today's plan for a learner's interviews ahead: the cards it reviews, in plan order.

    Made at the day's first look and kept here, so every worker serves the same one all day;
    made again when what it was made from (`basis`: the interviews, the bank, the learner's
    limits and parameters) changes.
    """

    learner_id: int = Field(foreign_key="learner.id", primary_key=True)
    day: date = Field(primary_key=True)
    basis: str = Field(max_length=64)
    card_ids: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))


class MockSession(SQLModel, table=True):
    """A mock interview: questions against the clock, follow-ups, a checklist per answer."""

    id: int | None = Field(default=None, primary_key=True)
    learner_id: int = Field(foreign_key="learner.id", index=True)
    card_ids: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    position: int = 0
    seconds_per_question: int = 120
    followup_seconds: int = 60
    order: str = "random"  # random | weakest
    label: str = ""
    started_at: datetime = _tz(default_factory=utcnow)
    finished_at: datetime | None = _tz(default=None, nullable=True)


class MockAnswer(SQLModel, table=True):
    """How one question of a mock interview went."""

    __table_args__ = (UniqueConstraint("mock_id", "card_id"),)

    id: int | None = Field(default=None, primary_key=True)
    mock_id: int = Field(foreign_key="mocksession.id", index=True)
    card_id: str = Field(foreign_key="card.id")
    position: int = 0
    answer_ms: int = 0  # from the question to the end of the main answer
    total_ms: int = 0  # follow-ups and checklist included
    limit_ms: int = 0
    points_total: int = 0
    points_said: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    followups_total: int = 0
    followups_answered: int = 0
    rating: int = 3
    counted: bool = False  # rated as a study review, which moved the schedule
    answered_at: datetime = _tz(default_factory=utcnow)


class Recording(SQLModel, table=True):
    """An answer spoken aloud in a mock interview; private to its learner."""

    __table_args__ = (UniqueConstraint("mock_id", "card_id"),)

    id: int | None = Field(default=None, primary_key=True)
    learner_id: int = Field(foreign_key="learner.id", index=True)
    mock_id: int = Field(foreign_key="mocksession.id", index=True)
    card_id: str = Field(foreign_key="card.id")
    mime: str = Field(max_length=100)
    size: int = 0
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: datetime = _tz(default_factory=utcnow)


class TeamLimits(SQLModel, table=True):
    """One row: limits an administrator set for every member, over the server's defaults."""

    id: int = Field(default=1, primary_key=True)
    # Each learner's space for recordings, in MB; None: the server's setting.
    recording_quota_mb: int | None = None
