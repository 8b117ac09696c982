"""Back up a learner's settings, schedule and review log as JSON, and restore it idempotently.

A thin route or command picks the learner (the current one, or any for an admin) and calls one
of these functions.
"""

from app.backup.document import FORMAT, VERSION, BackupError, dump_backup, parse_backup
from app.backup.export import export_learner, find_learner, log_csv
from app.backup.restore import PLACEHOLDER_DECK, RestoreReport, restore_learner

__all__ = [
    "FORMAT",
    "PLACEHOLDER_DECK",
    "VERSION",
    "BackupError",
    "RestoreReport",
    "dump_backup",
    "export_learner",
    "find_learner",
    "log_csv",
    "parse_backup",
    "restore_learner",
]
