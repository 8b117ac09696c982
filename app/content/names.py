"""Names of notes as links, decks and titles give them: for the pipeline and the study views."""

import unicodedata

NOTE_SUFFIXES = (".md", ".markdown", ".txt")


def note_stem(path: str) -> str:
    """A note's name as links give it: its file name without the Markdown extension."""
    name = path.rsplit("/", 1)[-1]
    for suffix in NOTE_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


# A folder's own page in a notes repository: named by the folder it introduces.
_INDEX_STEMS = frozenset({"readme", "index", "_index"})


def note_name(path: str) -> str:
    """A note's name as its deck or page shows it: its stem, or its folder's name for a
    folder's README or index, so the READMEs of a repository's folders are told apart."""
    stem = note_stem(path)
    if stem.lower() in _INDEX_STEMS and "/" in path:
        return path.rsplit("/", 2)[-2]
    return stem


def note_folder(path: str) -> str:
    """The folder a deck sits in, as the home page groups decks (the bundled `decks/` is none)."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    return "" if folder == "decks" else folder.removeprefix("decks/")


def normalise_title(text: str) -> str:
    """Key used to match titles: NFKC, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())
