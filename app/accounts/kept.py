"""What a device may keep of a member's pages: which session kept them, and for how long.

The service worker (static/sw.js) keeps the pages a member opens so that qbank opens offline.
On a shared device those pages must not outlive her session: each page tells the worker an
opaque id of the session that shows it and how long it may be kept, at most to the end of her
study day and never past the session's own end.
"""

import hashlib
from dataclasses import dataclass
from datetime import datetime

from app.infra.models import AuthSession, Learner
from app.scheduling.cardstate import aware
from app.scheduling.studyday import study_day


@dataclass(frozen=True)
class KeptPages:
    """The id the device keeps a session's pages under, and the seconds they may be kept."""

    id: str
    seconds: int


def kept_pages(row: AuthSession, learner: Learner, now: datetime) -> KeptPages:
    """How the device may keep the pages `row`'s session shows at `now`."""
    # Derived from the stored hash, not the token: the id names the session and opens nothing.
    kept_id = hashlib.sha256(f"qbank-kept-pages:{row.id}".encode()).hexdigest()[:32]
    _, day_end = study_day(learner, now)
    until = min(day_end, aware(row.expires_at))
    return KeptPages(kept_id, max(0, int((until - aware(now)).total_seconds())))
