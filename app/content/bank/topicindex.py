"""Topics by every name they go by: title, aliases, slug and file name, normalised."""

from dataclasses import dataclass

from app.content.errors import ContentError
from app.content.names import normalise_title, note_stem


@dataclass(frozen=True)
class TopicRef:
    slug: str
    title: str
    aliases: tuple[str, ...]
    path: str


def topic_index(topics: list[TopicRef]) -> tuple[dict[str, str], list[ContentError]]:
    """Map every normalised title, alias and slug to its topic slug; report clashes."""
    index: dict[str, str] = {}
    errors: list[ContentError] = []
    seen_slugs: dict[str, str] = {}
    for topic in topics:
        if topic.slug in seen_slugs:
            errors.append(
                ContentError.of(
                    "topic_slug_taken",
                    topic.path,
                    1,
                    slug=topic.slug,
                    other=seen_slugs[topic.slug],
                )
            )
            continue
        seen_slugs[topic.slug] = topic.path
    for topic in topics:
        # A note is linked by its file name too (`[[name]]`, `[x](name.md)`), as Obsidian does.
        for name in dict.fromkeys((topic.slug, topic.title, *topic.aliases, note_stem(topic.path))):
            key = normalise_title(name)
            other = index.get(key)
            if other is not None and other != topic.slug:
                errors.append(
                    ContentError.of("topic_name_taken", topic.path, 1, name=name, other=other)
                )
                continue
            index[key] = topic.slug
    return index, errors


def resolve(target: str, index: dict[str, str]) -> str | None:
    return index.get(normalise_title(target))
