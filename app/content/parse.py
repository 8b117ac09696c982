"""Turn deck and topic Markdown into plain dataclasses, reporting problems by line."""

import hashlib
import itertools
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import yaml

from app.content.errors import ContentError
from app.content.followups import ParsedFollowup, split_followups

BLOCKS = ("answer", "followups", "pitfalls", "reading")

BUILTIN_LABELS: dict[str, tuple[str, ...]] = {
    "answer": ("面试回答", "回答", "答案", "answer", "interview answer"),
    "followups": ("追问展开", "追问", "follow-up", "follow-ups", "follow up", "follow ups"),
    "pitfalls": ("易错点/边界", "易错点", "边界", "pitfalls", "pitfalls/edge cases", "edge cases"),
    "reading": ("继续读", "延伸阅读", "continue reading", "further reading", "see also"),
}

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_EXPLICIT_ID = re.compile(r"[ \t]*\{#([^}\s]*)\}[ \t]*$")
_VALID_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_QUESTION = re.compile(r"^Q[ \t]*[:：][ \t]*(.*)$", re.IGNORECASE)
_NUMBERED = re.compile(r"^(\d{1,4})[ \t]*[.、．)）][ \t]*(.*)$")
_LABEL = re.compile(r"^\*\*(.+?)\*\*[ \t]*[。.:：]?[ \t]*(.*)$")
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])[ \t]+")
_WIKILINK = re.compile(r"^\[\[(.+?)\]\]$")
_MDLINK = re.compile(r"^\[(.+?)\]\((\S+?)\)$")
_URL = re.compile(r"^https?://\S+$")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
# Line breaks as Markdown (and editors) count them; str.splitlines() also splits on \x0c,
# \x85, U+2028 and others, which would shift every reported line after one of them.
_NEWLINE = re.compile(r"\r\n?|\n")


@dataclass
class Block:
    """Markdown text plus the file line its first line sits on."""

    text: str = ""
    line: int = 0


@dataclass
class Link:
    title: str
    target: str
    external: bool
    line: int


@dataclass
class ParsedCard:
    id: str
    explicit_id: bool
    question: str
    section: str
    position: int
    line: int
    answer: Block
    followups: Block
    pitfalls: Block
    links: list[Link] = field(default_factory=list)
    # The follow-up questions of the follow-ups block; `followups` keeps only its other prose.
    questions: list[ParsedFollowup] = field(default_factory=list)

    def fingerprint(self) -> str:
        """Hash everything that, when changed, makes the stored card out of date."""
        parts = [
            self.question,
            self.section,
            self.answer.text,
            self.followups.text,
            self.pitfalls.text,
            *(f"{link.title}\x1f{link.target}" for link in self.links),
            # Absent for a card without questions, whose hash therefore stays what it was.
            *(f"\x1d{q.id}\x1f{q.question}\x1f{q.answer}" for q in self.questions),
        ]
        return hashlib.sha256("\x1e".join(parts).encode()).hexdigest()


@dataclass
class ParsedDeck:
    path: str
    slug: str
    title: str
    description: str
    tags: list[str]
    language: str
    style: str
    intro: Block
    cards: list[ParsedCard]


@dataclass
class ParsedTopic:
    path: str
    slug: str
    title: str
    aliases: list[str]
    summary: str
    body: Block


def normalise_title(text: str) -> str:
    """Key used to match titles: NFKC, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def derived_card_id(question: str) -> str:
    key = normalise_title(question).rstrip("?？ ")
    return "q-" + hashlib.sha1(key.encode()).hexdigest()[:12]


def slug_from_path(path: str) -> str:
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    return stem


def _label_key(text: str) -> str:
    text = normalise_title(text).rstrip("。.:：")
    return re.sub(r"\s*/\s*", "/", text).strip()


def split_front_matter(
    path: str, text: str, errors: list[ContentError]
) -> tuple[dict[str, Any], list[str], int]:
    """Return (meta, body lines, 1-based line number of the first body line)."""
    lines = _NEWLINE.split(text)
    if lines[-1] == "":
        lines.pop()
    if not lines or lines[0].strip() != "---":
        return {}, lines, 1
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            break
    else:
        errors.append(ContentError(path, 1, "front matter starts with '---' but never ends"))
        return {}, [], len(lines) + 1
    raw = "\n".join(lines[1:end])
    try:
        meta = yaml.safe_load(raw) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = 2 + (mark.line if mark else 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        errors.append(ContentError(path, line, f"invalid YAML in front matter: {problem}"))
        meta = {}
    if not isinstance(meta, dict):
        errors.append(ContentError(path, 2, "front matter must be a mapping of keys to values"))
        meta = {}
    return meta, lines[end + 1 :], end + 2


def _meta_str(meta: dict[str, Any], key: str, path: str, errors: list[ContentError]) -> str:
    value = meta.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str | int | float):
        errors.append(ContentError(path, 1, f"front matter '{key}' must be text"))
        return ""
    return str(value).strip()


def _meta_list(meta: dict[str, Any], key: str, path: str, errors: list[ContentError]) -> list[str]:
    value = meta.get(key) or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str | int | float) for v in value):
        errors.append(ContentError(path, 1, f"front matter '{key}' must be a list of text"))
        return []
    return [str(v).strip() for v in value if str(v).strip()]


def _label_table(meta: dict[str, Any], path: str, errors: list[ContentError]) -> dict[str, str]:
    table = {
        _label_key(alias): block for block, aliases in BUILTIN_LABELS.items() for alias in aliases
    }
    extra = meta.get("labels") or {}
    if not isinstance(extra, dict):
        errors.append(
            ContentError(path, 1, "front matter 'labels' must map block names to aliases")
        )
        return table
    for block, aliases in extra.items():
        if block not in BLOCKS:
            errors.append(
                ContentError(
                    path, 1, f"unknown label block '{block}' (expected one of {', '.join(BLOCKS)})"
                )
            )
            continue
        if isinstance(aliases, str | int | float):
            aliases = [aliases]
        if not isinstance(aliases, list | None) or not all(
            isinstance(alias, str | int | float) for alias in aliases or []
        ):
            message = f"front matter 'labels.{block}' must be a list of text"
            errors.append(ContentError(path, 1, message))
            continue
        for alias in aliases or []:
            table[_label_key(str(alias))] = block
    return table


def _check_slug(slug: str, path: str, errors: list[ContentError]) -> None:
    if not _VALID_ID.match(slug):
        errors.append(
            ContentError(path, 1, f"slug '{slug}' may only use letters, digits, '-', '_' and '.'")
        )


def _body_lines(lines: list[str]) -> list[tuple[int, str, bool]]:
    """Yield (index, line, structural) where structural is False inside code or display math."""
    out: list[tuple[int, str, bool]] = []
    fence: str | None = None
    in_math = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if fence:
            out.append((index, line, False))
            if stripped.startswith(fence) and set(stripped) <= set(fence[0]):
                fence = None
            continue
        if in_math:
            out.append((index, line, False))
            if stripped.endswith("$$"):
                in_math = False
            continue
        match = _FENCE.match(line)
        if match:
            fence = match.group(1)
            out.append((index, line, False))
            continue
        if stripped.startswith("$$") and _opens_display_math(lines, index):
            in_math = True
        out.append((index, line, True))
    return out


def _opens_display_math(lines: list[str], index: int) -> bool:
    """Whether the `$$` line at `index` opens a multi-line block, as dollarmath decides it."""
    # Only a block that closes before a blank line is math; otherwise markdown-it renders the
    # text as a paragraph, and treating it as math here would swallow every later heading.
    first = lines[index].strip()
    if len(first) > 3 and (first.endswith("$$") or "$$" in first[2:]):
        return False
    for line in lines[index + 1 :]:
        if not line.strip():
            return False
        if line.strip().endswith("$$"):
            return True
    return False


def parse_links(block: Block, path: str, errors: list[ContentError]) -> list[Link]:
    """Read a continue-reading block: entries split by ' / ' or one per list item."""
    links: list[Link] = []
    for offset, raw in enumerate(block.text.split("\n")):
        line = _LIST_MARKER.sub("", raw.strip())
        for entry in (part.strip() for part in line.split(" / ")):
            if not entry:
                continue
            lineno = block.line + offset
            if match := _WIKILINK.match(entry):
                links.append(Link(match.group(1).strip(), match.group(1).strip(), False, lineno))
            elif match := _MDLINK.match(entry):
                title, target = match.group(1).strip(), match.group(2).strip()
                links.append(_target_link(title, target, lineno, path, errors))
            elif _URL.match(entry):
                links.append(Link(entry, entry, True, lineno))
            else:
                links.append(Link(entry, entry, False, lineno))
    return [link for link in links if link.target]


def _target_link(title: str, target: str, line: int, path: str, errors: list[ContentError]) -> Link:
    scheme = _SCHEME.match(target)
    if scheme is None:
        return Link(title, target.removesuffix(".md").rsplit("/", 1)[-1], False, line)
    if scheme.group(1).lower() in ("http", "https"):
        return Link(title, target, True, line)
    errors.append(ContentError(path, line, f"unsafe or unsupported link target '{target}'"))
    return Link(title, "", True, line)


class _CardBuilder:
    def __init__(self, card_line: int, question: str, explicit: str | None, section: str) -> None:
        self.line = card_line
        self.question = question
        self.explicit = explicit
        self.section = section
        self.blocks: dict[str, list[tuple[int, str]]] = {name: [] for name in BLOCKS}
        self.current = "answer"

    def add(self, index: int, text: str) -> None:
        self.blocks[self.current].append((index, text))

    def block(self, name: str, first_line: int) -> Block:
        return _join_block(self.blocks[name], first_line)


def _join_block(entries: list[tuple[int, str]], first_line: int) -> Block:
    """Join (line index, text) entries into a Block, dropping blank lines at either end."""
    while entries and not entries[0][1].strip():
        entries.pop(0)
    while entries and not entries[-1][1].strip():
        entries.pop()
    if not entries:
        return Block("", 0)
    # A block's lines need not be contiguous (a label or heading line, or another block, may
    # sit in between); blank lines keep each one at its file offset so errors point at it.
    lines = [entries[0][1]]
    for (previous, _), (index, text) in itertools.pairwise(entries):
        lines += [""] * (index - previous - 1) + [text]
    return Block("\n".join(lines), first_line + entries[0][0])


def _detect_style(structure: list[tuple[int, str, bool]]) -> str:
    for _, line, structural in structure:
        if structural and (m := _HEADING.match(line)) and _QUESTION.match(m.group(2)):
            return "question"
    return "numbered"


def parse_deck(path: str, text: str) -> tuple[ParsedDeck | None, list[ContentError]]:
    """Parse one deck file; return the deck (None if unusable) and every error found."""
    errors: list[ContentError] = []
    meta, lines, first = split_front_matter(path, text, errors)
    title = _meta_str(meta, "title", path, errors)
    if not title:
        errors.append(ContentError(path, 1, "deck has no 'title' in its front matter"))
    slug = _meta_str(meta, "slug", path, errors) or slug_from_path(path)
    _check_slug(slug, path, errors)
    labels = _label_table(meta, path, errors)
    structure = _body_lines(lines)
    style = _meta_str(meta, "style", path, errors) or _detect_style(structure)
    if style not in ("question", "numbered"):
        errors.append(
            ContentError(path, 1, f"style must be 'question' or 'numbered', not '{style}'")
        )
        style = "question"

    intro: list[tuple[int, str]] = []
    section = ""
    builders: list[_CardBuilder] = []
    current: _CardBuilder | None = None
    for index, line, structural in structure:
        lineno = first + index
        heading = _HEADING.match(line) if structural else None
        if heading:
            level, heading_text = len(heading.group(1)), heading.group(2)
            card = _card_heading(style, level, heading_text)
            if card is not None:
                question, explicit = card
                if not question:
                    errors.append(ContentError(path, lineno, "card heading has no question text"))
                current = _CardBuilder(lineno, question, explicit, section)
                builders.append(current)
                continue
            if level <= 2:
                section = _EXPLICIT_ID.sub("", heading_text).strip()
                current = None
                continue
        if current is None:
            if not section:
                intro.append((index, line))
            continue
        label = _LABEL.match(line) if structural else None
        if label and (block := labels.get(_label_key(label.group(1)))):
            current.current = block
            if label.group(2):
                current.add(index, label.group(2))
            continue
        current.add(index, line)

    cards: list[ParsedCard] = []
    for position, builder in enumerate(builders):
        card = _finish_card(builder, position, first, path, errors)
        if card:
            cards.append(card)
    intro_block = _join_block(intro, first)
    description = _meta_str(meta, "description", path, errors)
    deck = ParsedDeck(
        path=path,
        slug=slug,
        title=title or slug,
        description=description,
        tags=_meta_list(meta, "tags", path, errors),
        language=_meta_str(meta, "language", path, errors) or "zh",
        style=style,
        intro=intro_block,
        cards=cards,
    )
    if not cards and not errors:
        errors.append(
            ContentError(path, first, f"deck has no cards (looked for {style}-style headings)")
        )
    return deck, errors


def _card_heading(style: str, level: int, text: str) -> tuple[str, str | None] | None:
    explicit = None
    if match := _EXPLICIT_ID.search(text):
        explicit = match.group(1)
        text = text[: match.start()]
    text = text.strip()
    if style == "question" and 2 <= level <= 4 and (m := _QUESTION.match(text)):
        return m.group(1).strip(), explicit
    if style == "numbered" and level in (2, 3) and (m := _NUMBERED.match(text)):
        return m.group(2).strip(), explicit
    return None


def _finish_card(
    builder: _CardBuilder, position: int, first: int, path: str, errors: list[ContentError]
) -> ParsedCard | None:
    if builder.explicit is not None and not _VALID_ID.match(builder.explicit):
        errors.append(
            ContentError(
                path,
                builder.line,
                f"card id '{builder.explicit}' may only use letters, digits, '-', '_' and '.'",
            )
        )
        return None
    answer = builder.block("answer", first)
    reading = builder.block("reading", first)
    if not answer.text and builder.question:
        errors.append(ContentError(path, builder.line, f"card '{builder.question}' has no answer"))
    card_id = builder.explicit or derived_card_id(builder.question)
    followups = builder.block("followups", first)
    prose, prose_line, questions = split_followups(
        followups.text, followups.line, card_id, path, errors
    )
    return ParsedCard(
        id=card_id,
        explicit_id=builder.explicit is not None,
        question=builder.question,
        section=builder.section,
        position=position,
        line=builder.line,
        answer=answer,
        followups=Block(prose, prose_line),
        pitfalls=builder.block("pitfalls", first),
        links=parse_links(reading, path, errors),
        questions=questions,
    )


def parse_topic(path: str, text: str) -> tuple[ParsedTopic | None, list[ContentError]]:
    """Parse one topic page."""
    errors: list[ContentError] = []
    meta, lines, first = split_front_matter(path, text, errors)
    title = _meta_str(meta, "title", path, errors)
    if not title:
        errors.append(ContentError(path, 1, "topic has no 'title' in its front matter"))
    slug = _meta_str(meta, "slug", path, errors) or slug_from_path(path)
    _check_slug(slug, path, errors)
    body = "\n".join(lines).strip("\n")
    leading = next((index for index, line in enumerate(lines) if line), 0)
    topic = ParsedTopic(
        path=path,
        slug=slug,
        title=title or slug,
        aliases=_meta_list(meta, "aliases", path, errors),
        summary=_meta_str(meta, "summary", path, errors),
        body=Block(body, first + leading),
    )
    return topic, errors
