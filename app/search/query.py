"""Search cards and topics over the folded text made at import, ranked by where terms match.

Every term must occur somewhere (as a substring, which works for Chinese without a segmenter);
results rank by the number of terms matched in the question/title, then in the answer/body,
then in follow-ups and pitfalls, then in reading lists; topics before cards, then content
order. The database only compares strings folded at import, so SQLite and PostgreSQL agree.
Terms of three characters or more are looked up in a trigram index first (app.infra.searchdb).
Control characters are refused here, before either database sees them: a NUL ends SQLite's
FTS5 query early and PostgreSQL's text cannot hold one, so each failed in its own way.
"""

import difflib
import html
import re
from collections import Counter
from dataclasses import dataclass, field
from threading import Lock

from markupsafe import Markup
from sqlalchemy import (
    ColumnElement,
    Integer,
    Text,
    case,
    column,
    func,
    literal,
    literal_column,
    or_,
)
from sqlalchemy import table as sql_table
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from app.content.compile.searchtext import FIELDS, fold, fold_with_map
from app.errors import Invalid
from app.infra.models import Deck, SearchEntry
from app.infra.searchdb import ALL_TEXT, FTS_TABLE, TRIGRAM

MAX_TERMS = 8
SNIPPET = 140  # characters shown around the first match
KINDS = ("card", "topic")
_WORD = re.compile(r"[a-z][a-z0-9+#_.-]*[a-z0-9+#]")
_FOLDED = {name: getattr(SearchEntry, f"{name}_folded") for name in FIELDS}
_ALL_TEXT = literal_column(f"({ALL_TEXT})", type_=Text)
# Unicode's control characters (Cc) but the whitespace a pasted term may hold (tab, newlines).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class BadQuery(Invalid):
    """A search the index cannot run."""


@dataclass(frozen=True)
class Hit:
    kind: str  # card | topic
    id: str
    title: str
    url: str
    snippet: Markup  # plain text, escaped, the matches in <mark>
    snippet_text: str
    title_html: Markup
    field: str  # the best field group that matched
    deck: str = ""
    deck_id: int | None = None


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: list[Hit] = field(default_factory=list)
    total: int = 0  # hits before the limit
    suggestions: list[str] = field(default_factory=list)  # other queries, when nothing matched


def printable(text: str) -> str:
    """`text` without its control characters, to offer back in the search form."""
    return _CONTROL.sub("", text)


def check_input(*texts: str | None) -> None:
    """Refuse (BadQuery) search input holding control characters."""
    if any(text and _CONTROL.search(text) for text in texts):
        raise BadQuery("search_control_characters", key="limits.search_control")


def terms_of(query: str) -> list[str]:
    return list(dict.fromkeys(fold(query).split()))[:MAX_TERMS]


def _like(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", r"\%").replace("_", r"\_")
    return f"%{escaped}%"


def _matches(column: object, term: str) -> ColumnElement[bool]:
    return col(column).like(_like(term), escape="\\")


def _holds(term: str, dialect: str) -> ColumnElement[bool]:
    """Whether an entry holds `term` in any field: through its trigram index where it can."""
    if len(term) >= TRIGRAM:
        return _matches(_ALL_TEXT, term)
    # Too short for a trigram: a function no index serves, so PostgreSQL reads the table
    # rather than every posting list of its index; field by field, which spares joining them.
    position = func.instr if dialect == "sqlite" else func.strpos
    return or_(*(position(field, term) > 0 for field in _FOLDED.values()))


def _fts_rows(terms: list[str]) -> ColumnElement[bool] | None:
    """SQLite: the entries whose trigram index holds every term of three characters or more.

    Each term is an FTS5 phrase, which the trigram tokenizer matches as a substring; the LIKE
    comparisons then decide, so this only spares comparing entries that cannot match.
    """
    long = [term for term in terms if len(term) >= TRIGRAM]
    if not long:
        return None
    phrases = " AND ".join('"' + term.replace('"', '""') + '"' for term in long)
    fts = sql_table(FTS_TABLE, column("rowid"))
    rows = select(fts.c.rowid).where(literal_column(FTS_TABLE).op("MATCH")(phrases))
    return col(SearchEntry.id).in_(rows)


def _score(terms: list[str]) -> ColumnElement[int]:
    """Matched terms per field group as the digits of one number, the title's the highest."""
    base = MAX_TERMS + 1
    parts = [
        case((_matches(_FOLDED[name], term), literal(base ** (len(FIELDS) - 1 - rank))), else_=0)
        for rank, name in enumerate(FIELDS)
        for term in terms
    ]
    return sum(parts[1:], parts[0]).cast(Integer)


def search(
    session: Session,
    query: str,
    *,
    kind: str | None = None,
    deck: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> SearchResult:
    """Cards and topics holding every term of `query`, best first; optionally one kind or deck."""
    check_input(query, kind, deck)
    terms = terms_of(query)
    if not terms:
        return SearchResult(query)
    statement = search_statement(session, terms, kind=kind, deck=deck, limit=limit)
    rows = session.exec(statement.offset(offset)).all()
    if not rows:
        if offset:  # past the last page: no suggestions, the query matched
            return SearchResult(query)
        return SearchResult(query, suggestions=suggest(session, terms))
    hits = [_hit(entry, deck_title or "", terms) for entry, deck_title, _, _ in rows]
    return SearchResult(query, hits, total=rows[0][3])


def search_statement(
    session: Session, terms: list[str], *, kind: str | None, deck: str | None, limit: int
) -> Select[SearchEntry, str, int, int]:
    """The entries holding every term, with deck title, score and total, best first."""
    dialect = session.get_bind().dialect.name
    score = _score(terms).label("score")
    statement = (
        select(SearchEntry, Deck.title, score, func.count().over().label("total"))
        .outerjoin(Deck, col(Deck.id) == SearchEntry.deck_id)
        .where(*(_holds(term, dialect) for term in terms))
        .order_by(
            score.desc(),
            case((col(SearchEntry.kind) == "topic", 0), else_=1),
            col(SearchEntry.ordinal),
            col(SearchEntry.key),
        )
        .limit(limit)
    )
    # PostgreSQL answers the LIKE comparisons from its pg_trgm index by itself.
    if dialect == "sqlite" and (indexed := _fts_rows(terms)) is not None:
        statement = statement.where(indexed)
    if kind in KINDS:
        statement = statement.where(SearchEntry.kind == kind)
    if deck:
        statement = statement.where(Deck.slug == deck)
    return statement


def deck_choices(session: Session, hits: list[Hit], chosen: str = "") -> list[tuple[str, str]]:
    """(slug, title) of the decks the search form's filter offers: the chosen one and those of
    the hits shown (a vault holds thousands of decks; a menu of all of them helps nobody)."""
    ids = list(dict.fromkeys(hit.deck_id for hit in hits if hit.deck_id is not None))
    rows = session.exec(
        select(Deck.id, Deck.slug, Deck.title).where(
            col(Deck.retired).is_(False), or_(col(Deck.id).in_(ids), col(Deck.slug) == chosen)
        )
    ).all()
    order = {deck_id: n for n, deck_id in enumerate(ids)}
    ranked = sorted(rows, key=lambda row: (row[1] != chosen, order.get(row[0], 0)))
    return [(slug, title) for _, slug, title in ranked]


def _hit(entry: SearchEntry, deck_title: str, terms: list[str]) -> Hit:
    best = next(
        (n for n in FIELDS if any(t in getattr(entry, f"{n}_folded") for t in terms)), "body"
    )
    # A title match shows the start of the body: the title is shown, highlighted, anyway.
    source = getattr(entry, best if best != "title" else "body") or entry.title
    text, marked = snippet(source, terms)
    url = f"/cards/{entry.key}" if entry.kind == "card" else f"/topics/{entry.key}"
    return Hit(
        kind=entry.kind,
        id=entry.key,
        title=entry.label,
        url=url,
        snippet=marked,
        snippet_text=text,
        title_html=highlight(entry.label, terms),
        field=best,
        deck=deck_title,
        deck_id=entry.deck_id,
    )


def _spans(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Where terms occur in `text` as displayed, merged, in order."""
    folded, origin = fold_with_map(text)
    found: list[tuple[int, int]] = []
    for term in terms:
        start = folded.find(term)
        while start >= 0:
            end = start + len(term)
            found.append((origin[start], origin[end - 1] + 1))
            start = folded.find(term, end)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def highlight(text: str, terms: list[str]) -> Markup:
    """Escape `text` and wrap every occurrence of a term in <mark>."""
    out, last = [], 0
    for start, end in _spans(text, terms):
        out += [html.escape(text[last:start]), f"<mark>{html.escape(text[start:end])}</mark>"]
        last = end
    out.append(html.escape(text[last:]))
    return Markup("".join(out))


def snippet(text: str, terms: list[str]) -> tuple[str, Markup]:
    """A window of plain `text` around the first match: as text, and highlighted."""
    spans = _spans(text, terms)
    first = spans[0][0] if spans else 0
    start = max(first - SNIPPET // 3, 0)
    if start:
        # Begin at a word's start where there is one close by (Chinese has no spaces).
        space = text.rfind(" ", start - 12, first)
        start = space + 1 if space >= 0 else start
    end = min(start + SNIPPET, len(text))
    if end < len(text):
        space = text.rfind(" ", end - 12, end)
        end = space if space > first else end
    piece = text[start:end]
    prefix, suffix = ("…" if start else ""), ("…" if end < len(text) else "")
    return prefix + piece + suffix, Markup(prefix) + highlight(piece, terms) + Markup(suffix)


# Vocabulary for suggestions, per process, made again whenever the entries change: each word
# with the number of entries it occurs in.
_vocabulary: dict[str, tuple[tuple[int, int], Counter[str]]] = {}
_vocabulary_lock = Lock()


def _words(session: Session) -> Counter[str]:
    bind = str(session.get_bind().engine.url)
    mark = session.exec(select(func.count(), func.max(SearchEntry.id))).one()
    stamp = (mark[0], mark[1] or 0)
    with _vocabulary_lock:
        cached = _vocabulary.get(bind)
        if cached and cached[0] == stamp:
            return cached[1]
    words: Counter[str] = Counter()
    folded = select(SearchEntry.title_folded, SearchEntry.body_folded, SearchEntry.reading_folded)
    for row in session.exec(folded):
        words.update(set(_WORD.findall(" ".join(row))))
    with _vocabulary_lock:
        _vocabulary[bind] = (stamp, words)
    return words


def _close(term: str, words: Counter[str], count: int) -> list[str]:
    """Known words like `term`: the most alike first, then the most common."""
    matcher = difflib.SequenceMatcher(b=term)
    scored = []
    for word in words:
        matcher.set_seq1(word)
        if matcher.real_quick_ratio() >= 0.7 and matcher.quick_ratio() >= 0.7:
            ratio = matcher.ratio()
            if ratio >= 0.7:
                scored.append((-ratio, -words[word], word))
    return [word for _, _, word in sorted(scored)[:count]]


def suggest(session: Session, terms: list[str], *, count: int = 3) -> list[str]:
    """Queries close to one that matched nothing: each unknown word swapped for a known one."""
    words = _words(session)
    options: list[list[str]] = []
    for term in terms:
        if term in words or not _WORD.fullmatch(term):
            options.append([term])
            continue
        close = _close(term, words, count)
        if not close:
            return []
        options.append(close)
    if all(choice == [term] for choice, term in zip(options, terms, strict=True)):
        return []
    suggestions = [
        " ".join(choice[min(i, len(choice) - 1)] for choice in options) for i in range(count)
    ]
    return list(dict.fromkeys(suggestions))
