"""What a form that starts a practice run or a mock interview offers as its scope."""

from datetime import datetime

from sqlmodel import Session

from app.infra.models import Learner
from app.study import Filters, catalog


def scope_choices(
    session: Session, *, learner: Learner, now: datetime, filters: Filters
) -> dict[str, object]:
    """The context of templates/_scope_fields.html: folders, decks, tags, the scope asked for."""
    decks = catalog.deck_summaries(session, learner=learner, now=now)
    return {
        "decks": decks,
        "folders": folders(catalog.folder_tree(decks)),
        "folder": filters.folder or "",
        "tags": catalog.tag_summaries(decks),
        "deck": filters.deck or "",
        "section": filters.section or "",
        "tag": filters.tag or "",
    }


def folders(folder: catalog.Folder) -> list[catalog.Folder]:
    """Every folder below `folder`, each before its own sub-folders."""
    out = []
    for child in folder.folders:
        out += [child, *folders(child)]
    return out
