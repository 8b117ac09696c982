"""Export decks as an Anki package (.apkg) with stable ids, so re-importing updates notes."""

import hashlib
import html
import itertools
import json
import os
import re
import sqlite3
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO
from urllib.parse import quote

import genanki
from sqlmodel import Session, col, select

from app.content.compile.images import ImageError, load
from app.errors import NotFound
from app.infra.models import Card, CardLink, Deck, Followup
from app.study import catalog
from app.study.marks import Mark

FIELDS = ("Question", "Answer", "Followups", "Pitfalls", "Reading", "Source")

# Anki prints both languages' labels because one note type serves every deck.
_BACK = """{{FrontSide}}
<hr id="answer">
<div class="answer">{{Answer}}</div>
{{#Followups}}<h3>追问展开 · Follow-ups</h3><div class="followups">{{Followups}}</div>{{/Followups}}
{{#Pitfalls}}<h3>易错点 / 边界 · Pitfalls</h3><div class="pitfalls">{{Pitfalls}}</div>{{/Pitfalls}}
{{#Reading}}<h3>继续读 · Continue reading</h3><div class="reading">{{Reading}}</div>{{/Reading}}
<p class="source">{{Source}}</p>"""

_CSS = """.card {
  font-family: system-ui, "PingFang SC", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif;
  font-size: 18px; line-height: 1.6; text-align: left; max-width: 46rem; margin: 0 auto; }
.question { font-size: 1.2em; font-weight: 600; }
h3 { font-size: 1em; margin: 1.2em 0 .3em; }
pre { overflow-x: auto; padding: .6em; border-radius: 6px; background: rgba(127, 127, 127, .12); }
table { border-collapse: collapse; } th, td { border: 1px solid #8884; padding: .2em .5em; }
.source { margin-top: 1.5em; font-size: .8em; opacity: .6; }
.followup-questions { padding-left: 1.4em; }
.followup-questions .q { font-weight: 600; }
.followup-questions .a { margin: .2em 0 .8em; }"""


def stable_id(key: str) -> int:
    """A deterministic id in the range genanki recommends for deck and model ids."""
    digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    return (1 << 30) + digest % (1 << 30)


MODEL = genanki.Model(
    stable_id("qbank model: Question/Answer/Followups/Pitfalls/Reading/Source"),
    "qbank Q&A",
    fields=[{"name": name} for name in FIELDS],
    templates=[{"name": "Card", "qfmt": '<div class="question">{{Question}}</div>', "afmt": _BACK}],
    css=_CSS,
)


CLOZE_FIELDS = ("Text", "Back Extra", "Source")

# Anki's own Cloze note type, as qbank fills it: one note per qbank cloze card, whose Text holds
# that card's deletion as `{{c1::…}}` (formulas as \(…\), which Anki's MathJax reads).
CLOZE_MODEL = genanki.Model(
    stable_id("qbank model: Cloze Text/Back Extra/Source"),
    "qbank Cloze",
    fields=[{"name": name} for name in CLOZE_FIELDS],
    templates=[
        {
            "name": "Cloze",
            "qfmt": "{{cloze:Text}}",
            "afmt": '{{cloze:Text}}<br>{{Back Extra}}<p class="source">{{Source}}</p>',
        }
    ],
    css=_CSS + "\n.cloze { font-weight: 600; color: #2458c6; }",
    model_type=genanki.Model.CLOZE,
)


@dataclass(frozen=True)
class ExportReport:
    decks: int
    notes: int
    formulas: int
    images: int = 0


# C0 controls and DEL: Anki separates a note's fields with U+001F, so one of them inside a field
# made the whole package fail to import; Anki drops the others from names and fields itself.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_NESTING = re.compile(r":{2,}")


def plain(text: str) -> str:
    """`text` without the control characters a field, tag or deck name cannot hold."""
    return _CONTROL.sub("", text)


def flat(text: str) -> str:
    """One level of an Anki name: '::' (or ':::…') would nest it, so it becomes one ':'.

    qbank's decks, sections and tags are flat: a deck titled "CUDA::Streams" is one deck,
    "qbank::CUDA:Streams", never a deck "Streams" inside a deck "CUDA".
    """
    return _NESTING.sub(":", " ".join(plain(text).split()))


def deck_name(deck: Deck) -> str:
    """The deck's name in Anki: plain text (Anki escapes it where it shows it) under 'qbank'."""
    return "qbank::" + (flat(deck.title) or deck.slug)


def anki_tag(text: str) -> str:
    """Anki splits tags on whitespace, so join the words of one tag with '_'."""
    return "_".join(flat(text).split())


def _decks(session: Session, deck_slug: str | None) -> list[Deck]:
    if deck_slug is None:
        return list(
            session.exec(select(Deck).where(col(Deck.retired).is_(False)).order_by(col(Deck.path)))
        )
    deck = catalog.get_deck(session, deck_slug)
    if deck is None:
        raise NotFound("deck_not_found", deck=deck_slug)
    return [deck]


def _reading(links: Iterable[CardLink], base_url: str | None) -> str:
    items = []
    for link in links:
        url = catalog.link_url(link)
        if url is not None and not link.external:
            # Topic pages live in qbank; without its address they stay plain titles.
            url = base_url.rstrip("/") + url if base_url else None
        title = html.escape(link.title)
        items.append(
            f'<li><a href="{html.escape(url)}">{title}</a></li>' if url else f"<li>{title}</li>"
        )
    return f"<ul>{''.join(items)}</ul>" if items else ""


def _followups(questions: list[Followup], prose: str) -> str:
    """The Followups field: each question with its answer, then the follow-ups' prose."""
    items = "".join(
        f'<li><div class="q">{q.question_anki}</div><div class="a">{q.answer_anki}</div></li>'
        for q in questions
    )
    listed = f'<ol class="followup-questions">{items}</ol>' if items else ""
    return listed + prose


def _card_followups(session: Session, card_ids: list[str]) -> dict[str, list[Followup]]:
    found: dict[str, list[Followup]] = {}
    for chunk in (card_ids[start : start + 500] for start in range(0, len(card_ids), 500)):
        query = select(Followup).where(col(Followup.card_id).in_(chunk))
        for followup in session.exec(query.order_by(col(Followup.position))):
            found.setdefault(followup.card_id, []).append(followup)
    return found


def _source(deck: Deck, card: Card, base_url: str | None) -> str:
    where = " / ".join(html.escape(part) for part in (deck.title, card.section) if part)
    ident = html.escape(card.id)
    if base_url:
        href = html.escape(f"{base_url.rstrip('/')}/cards/{quote(card.id, safe='')}")
        ident = f'<a href="{href}">{ident}</a>'
    return f"{where} / {ident}" if where else ident


class _Media:
    """Images the exported notes show, as Anki media: the import named them; files from `root`."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.files: dict[str, Path] = {}

    def add(self, media: Mapping[str, str]) -> None:
        if self.root is None:
            return
        for name, path in media.items():
            try:
                image = load(self.root, path)
            except ImageError:
                continue  # gone since the import: Anki shows the alt text
            self.files[name] = self.root / image.path


def _note(
    deck: Deck,
    card: Card,
    links: list[CardLink],
    questions: list[Followup],
    base_url: str | None,
    media: _Media,
    mark: Mark | None = None,
) -> tuple[genanki.Note, int]:
    # The Anki forms were compiled at import: formulas as TeX, images by their media names.
    anki = card.anki_fields
    model = MODEL
    fields = [
        anki.get("question", ""),
        anki.get("answer", ""),
        _followups(questions, anki.get("followups", "")),
        anki.get("pitfalls", ""),
        _reading(links, base_url),
        _source(deck, card, base_url),
    ]
    if card.kind == "cloze":
        model = CLOZE_MODEL
        fields = [anki.get("text", ""), anki.get("extra", ""), _source(deck, card, base_url)]
    media.add(card.anki_media)
    tags = [anki_tag(tag) for tag in (*deck.tags, card.section)]
    if mark is not None and mark.leech:
        tags.append("leech")  # the tag Anki itself gives a leech
    note = genanki.Note(
        model=model,
        fields=[plain(field) for field in fields],
        tags=list(dict.fromkeys(tag for tag in tags if tag)),
        # The card id never changes, so Anki updates this note instead of duplicating it.
        guid=genanki.guid_for(card.id),
    )
    return note, card.formula_count


def build_package(
    *,
    session: Session,
    deck_slug: str | None,
    base_url: str | None = None,
    content_dir: Path | None = None,
    marks: Mapping[str, Mark] | None = None,
) -> tuple[genanki.Package, dict[str, Path], ExportReport]:
    """One Anki deck per qbank deck, holding a note for each active card, and its media.

    Images the cards show are taken from `content_dir`, as {name in the package: file}.
    `marks`: a learner's marks by card id; leeches get Anki's "leech" tag.
    """
    decks = _decks(session, deck_slug)
    by_id = {deck.id: deck for deck in decks}
    cards = session.exec(
        select(Card)
        .where(col(Card.deck_id).in_(list(by_id)), col(Card.retired).is_(False))
        .order_by(col(Card.position))
    ).all()
    links = catalog.card_links(session, [card.id for card in cards])
    questions = _card_followups(session, [card.id for card in cards])
    anki_decks = {
        deck.id: genanki.Deck(
            stable_id(f"qbank deck: {deck.slug}"),
            deck_name(deck),
            description=html.escape(plain(deck.description)),
        )
        for deck in decks
    }
    formulas = 0
    media = _Media(content_dir)
    for card in cards:
        note, count = _note(
            by_id[card.deck_id],
            card,
            links.get(card.id, []),
            questions.get(card.id, []),
            base_url,
            media,
            (marks or {}).get(card.id),
        )
        anki_decks[card.deck_id].add_note(note)
        formulas += count
    package = genanki.Package(list(anki_decks.values()))
    report = ExportReport(len(decks), len(cards), formulas, images=len(media.files))
    return package, media.files, report


def _card_marks(cursor: sqlite3.Cursor, marks: Mapping[str, Mark]) -> None:
    """Suspend and flag the cards of the collection as the learner did (genanki cannot)."""
    for card_id, mark in marks.items():
        note = "nid = (SELECT id FROM notes WHERE guid = ?)"
        guid = genanki.guid_for(card_id)
        if mark.suspended:
            cursor.execute(f"UPDATE cards SET queue = -1 WHERE {note}", (guid,))
        if mark.flag:
            cursor.execute(f"UPDATE cards SET flags = ? WHERE {note}", (mark.flag, guid))


def _write(
    package: genanki.Package,
    media: dict[str, Path],
    target: Path | BinaryIO,
    timestamp: float,
    marks: Mapping[str, Mark] | None = None,
) -> None:
    # Package.write_to_file leaves its temporary SQLite file behind and cannot write to a
    # stream, so build the collection in a directory that is cleaned up, then zip it.
    with tempfile.TemporaryDirectory(prefix="qbank-apkg-") as tmp:
        collection = Path(tmp) / "collection.anki2"
        connection = sqlite3.connect(collection)
        try:
            package.write_to_db(
                connection.cursor(), timestamp, itertools.count(int(timestamp * 1000))
            )
            _card_marks(connection.cursor(), marks or {})
            connection.commit()
        finally:
            connection.close()
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.write(collection, "collection.anki2")
            # Anki's media list: numbered members of the archive, each with its file name.
            names = {}
            for number, (name, source) in enumerate(sorted(media.items())):
                archive.write(source, str(number))
                names[str(number)] = name
            archive.writestr("media", json.dumps(names))


def export_apkg(
    *,
    session: Session,
    deck_slug: str | None,
    path: Path | str | BinaryIO,
    base_url: str | None = None,
    content_dir: Path | None = None,
    now: datetime | None = None,
    marks: Mapping[str, Mark] | None = None,
) -> ExportReport:
    """Write one deck (or every deck) to `path` as an .apkg; NotFound for an unknown deck.

    `marks`: a learner's marks by card id, exported where Anki has the same notion: suspended
    cards, flags, and the leech tag.
    """
    package, media, report = build_package(
        session=session,
        deck_slug=deck_slug,
        base_url=base_url,
        content_dir=content_dir,
        marks=marks,
    )
    timestamp = (now or datetime.now(UTC)).timestamp()
    if not isinstance(path, str | Path):
        _write(package, media, path, timestamp, marks)
        return report
    # Write beside the target and rename, so a failed export never leaves half a package.
    target = Path(path)
    partial = target.with_name(target.name + ".part")
    try:
        _write(package, media, partial, timestamp, marks)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return report
