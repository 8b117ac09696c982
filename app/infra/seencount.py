"""How many of a deck's active cards each learner has studied, kept by the database itself.

The study queue counts a learner's new cards as a deck's active cards (its `card_count`, kept
by imports) minus the ones the learner has a state for (`seencount.seen`). Reading one row per
deck instead of counting the learner's states keeps a request's cost flat however long the
learner's history. Triggers keep the count, so every writer of card states (a rating, an undo,
a backup restore, a test's factory) and every import that moves a card to another deck or
retires it keeps it right without knowing of it.

Made with the tables (create_all) and by migration 0023. An SQLite batch migration that
rebuilds `card` or `cardstate` drops their triggers: such a migration must make them again.
"""

from sqlalchemy import MetaData, event
from sqlalchemy.engine import Connection

TRIGGERS = ("seencount_state_insert", "seencount_state_delete", "seencount_card_update")

_ADD_STATES = (
    "INSERT INTO seencount (learner_id, deck_id, seen) SELECT {learner}, {deck}, 1"
    " FROM {source} WHERE {where}"
    " ON CONFLICT (learner_id, deck_id) DO UPDATE SET seen = seencount.seen + 1"
)
_ADD_STATE = _ADD_STATES.format(
    learner="new.learner_id",
    deck="deck_id",
    source="card",
    where="card.id = new.card_id AND NOT card.retired",
)
_REMOVE_STATE = (
    "UPDATE seencount SET seen = seen - 1 WHERE learner_id = old.learner_id"
    " AND deck_id = (SELECT deck_id FROM card WHERE id = old.card_id AND NOT retired)"
)
# A card moved to another deck, retired or brought back: every learner who studied it.
_MOVE_OUT = (
    "UPDATE seencount SET seen = seen - 1 WHERE deck_id = old.deck_id AND NOT old.retired"
    " AND learner_id IN (SELECT learner_id FROM cardstate WHERE card_id = old.id)"
)
_MOVE_IN = _ADD_STATES.format(
    learner="learner_id",
    deck="new.deck_id",
    source="cardstate",
    where="card_id = new.id AND NOT new.retired",
)
_MOVED = "old.deck_id IS DISTINCT FROM new.deck_id OR old.retired IS DISTINCT FROM new.retired"

SQLITE = (
    f"CREATE TRIGGER seencount_state_insert AFTER INSERT ON cardstate BEGIN {_ADD_STATE}; END",
    f"CREATE TRIGGER seencount_state_delete AFTER DELETE ON cardstate BEGIN {_REMOVE_STATE}; END",
    "CREATE TRIGGER seencount_card_update AFTER UPDATE OF deck_id, retired ON card"
    f" WHEN {_MOVED.replace('IS DISTINCT FROM', 'IS NOT')}"
    f" BEGIN {_MOVE_OUT}; {_MOVE_IN}; END",
)
# Table names unqualified: they resolve along the connection's search_path, so the functions
# work in whichever schema holds the bank.
POSTGRESQL = (
    "CREATE FUNCTION seencount_state() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
    f" IF TG_OP = 'INSERT' THEN {_ADD_STATE}; RETURN new; END IF;"
    f" {_REMOVE_STATE}; RETURN old; END $$",
    "CREATE FUNCTION seencount_card() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
    f" {_MOVE_OUT}; {_MOVE_IN}; RETURN new; END $$",
    "CREATE TRIGGER seencount_state_insert AFTER INSERT ON cardstate"
    " FOR EACH ROW EXECUTE FUNCTION seencount_state()",
    "CREATE TRIGGER seencount_state_delete AFTER DELETE ON cardstate"
    " FOR EACH ROW EXECUTE FUNCTION seencount_state()",
    "CREATE TRIGGER seencount_card_update AFTER UPDATE OF deck_id, retired ON card"
    f" FOR EACH ROW WHEN ({_MOVED}) EXECUTE FUNCTION seencount_card()",
)

# The counts as the triggers would have kept them, from the states there are.
RECOUNT = (
    "DELETE FROM seencount",
    "INSERT INTO seencount (learner_id, deck_id, seen)"
    " SELECT cardstate.learner_id, card.deck_id, count(*) FROM cardstate"
    " JOIN card ON card.id = cardstate.card_id WHERE NOT card.retired"
    " GROUP BY cardstate.learner_id, card.deck_id",
)


def create_triggers(connection: Connection) -> None:
    """Make the triggers that keep `seencount`, and count what is there already."""
    sqlite = connection.dialect.name == "sqlite"
    for statement in (*RECOUNT, *(SQLITE if sqlite else POSTGRESQL)):
        connection.exec_driver_sql(statement)


def drop_triggers(connection: Connection) -> None:
    if connection.dialect.name == "sqlite":
        for name in TRIGGERS:
            connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        return
    for name, table in zip(TRIGGERS, ("cardstate", "cardstate", "card"), strict=True):
        connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name} ON {table}")
    for function in ("seencount_state", "seencount_card"):
        connection.exec_driver_sql(f"DROP FUNCTION IF EXISTS {function}()")


def attach(metadata: MetaData) -> None:
    """Make the triggers whenever the tables are created (after all of them: they join three)."""

    @event.listens_for(metadata, "after_create")
    def _after_create(_target: MetaData, connection: Connection, **_kw: object) -> None:
        if "seencount" in _target.tables:
            create_triggers(connection)
