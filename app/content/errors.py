"""Problems found in content, always tied to a file and line."""

from dataclasses import dataclass


@dataclass(frozen=True)
class ContentError(Exception):
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class ContentWarning(ContentError):
    """A problem worth fixing that does not stop an import (e.g. Markdown left literal)."""


class ContentErrors(Exception):
    """Raised when content cannot be imported; carries every error found."""

    def __init__(self, errors: list[ContentError]) -> None:
        super().__init__(f"{len(errors)} error(s) in content")
        self.errors = errors
