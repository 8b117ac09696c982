"""A note's front matter: its YAML mapping, typed values, and the table of block labels."""

import datetime
import re
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent
from yaml.nodes import Node

from app.content.errors import ContentError
from app.content.names import normalise_title

BLOCKS = ("answer", "followups", "pitfalls", "reading")

BUILTIN_LABELS: dict[str, tuple[str, ...]] = {
    "answer": ("面试回答", "回答", "答案", "答", "a", "answer", "interview answer"),
    "followups": ("追问展开", "追问", "follow-up", "follow-ups", "follow up", "follow ups"),
    "pitfalls": ("易错点/边界", "易错点", "边界", "pitfalls", "pitfalls/edge cases", "edge cases"),
    "reading": ("继续读", "延伸阅读", "continue reading", "further reading", "see also"),
}

VALID_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# Line breaks as Markdown (and editors) count them; str.splitlines() also splits on \x0c,
# \x85, U+2028 and others, which would shift every reported line after one of them.
NEWLINE = re.compile(r"\r\n?|\n")


def label_key(text: str) -> str:
    text = normalise_title(text).rstrip("。.:：")
    return re.sub(r"\s*/\s*", "/", text).strip()


class _Loader(yaml.SafeLoader):
    """Safe YAML that turns every odd value into a YAML error at its line.

    PyYAML's own constructors raise plain ValueError (an impossible date, an integer too long to
    convert) and aliases let a small text expand without bound; both become a marked error here.
    """

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise ComposerError(None, None, "aliases (*name) are not allowed", event.start_mark)
        return super().compose_node(parent, index)

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError, TypeError) as exc:
            problem = f"{node.value!s:.40}: {str(exc).split(':')[0]:.80}"
            raise ConstructorError(None, None, problem, node.start_mark) from exc


def _load(raw: str) -> Any:
    loader = _Loader(raw)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def split_front_matter(
    path: str, text: str, errors: list[ContentError]
) -> tuple[dict[str, Any], list[str], int]:
    """Return (meta, body lines, 1-based line number of the first body line)."""
    lines = NEWLINE.split(text)
    if lines[-1] == "":
        lines.pop()
    if not lines or lines[0].strip() != "---":
        return {}, lines, 1
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            break
    else:
        # Read as a horizontal rule and text, so that nothing in the note is lost.
        errors.append(ContentError.of("frontmatter_unclosed", path, 1))
        return {}, lines, 1
    raw = "\n".join(lines[1:end])
    try:
        meta = _load(raw) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = 2 + (mark.line if mark else 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        errors.append(ContentError.of("frontmatter_yaml", path, line, problem=problem))
        meta = {}
    except RecursionError:
        errors.append(ContentError.of("frontmatter_yaml", path, 2, problem="nested too deeply"))
        meta = {}
    if not isinstance(meta, dict):
        errors.append(ContentError.of("frontmatter_not_mapping", path, 2))
        meta = {}
    return meta, lines[end + 1 :], end + 2


def meta_str(meta: dict[str, Any], key: str, path: str, errors: list[ContentError]) -> str:
    value = meta.get(key, "")
    if value is None:
        return ""
    if isinstance(value, datetime.date):
        return value.isoformat()
    if not isinstance(value, str | int | float):
        errors.append(ContentError.of("frontmatter_not_text", path, 1, key=key))
        return ""
    return str(value).strip()


def meta_list(meta: dict[str, Any], key: str, path: str, errors: list[ContentError]) -> list[str]:
    value = meta.get(key) or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(
        isinstance(v, str | int | float | datetime.date) for v in value
    ):
        errors.append(ContentError.of("frontmatter_not_list", path, 1, key=key))
        return []
    return [str(v).strip() for v in value if str(v).strip()]


def label_table(meta: dict[str, Any], path: str, errors: list[ContentError]) -> dict[str, str]:
    table = {
        label_key(alias): block for block, aliases in BUILTIN_LABELS.items() for alias in aliases
    }
    extra = meta.get("labels") or {}
    if not isinstance(extra, dict):
        errors.append(ContentError.of("labels_not_mapping", path, 1))
        return table
    for block, aliases in extra.items():
        if block not in BLOCKS:
            errors.append(
                ContentError.of(
                    "label_block_unknown", path, 1, block=str(block), blocks=", ".join(BLOCKS)
                )
            )
            continue
        if isinstance(aliases, str | int | float):
            aliases = [aliases]
        if not isinstance(aliases, list | None) or not all(
            isinstance(alias, str | int | float) for alias in aliases or []
        ):
            errors.append(ContentError.of("label_not_list", path, 1, block=str(block)))
            continue
        for alias in aliases or []:
            table[label_key(str(alias))] = block
    return table


def check_slug(slug: str, path: str, errors: list[ContentError]) -> None:
    if not VALID_ID.match(slug):
        errors.append(ContentError.of("slug_invalid", path, 1, slug=slug))
