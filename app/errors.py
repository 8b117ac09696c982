"""The refusals of the app: a stable code, an HTTP status and a message in the reader's language.

A function that refuses a request raises one of these with its `code` (e.g. `card_not_found`)
and the values its message needs. The message is an interface string (`error.<code>` in
app/strings/errors.py unless `key` names another) that the web layer says in the reader's
language; JSON answers carry the code beside it, so clients branch on the code, never on words.
str() of an error is its English wording, for the command line, the log and job messages.
"""

from app.strings.errors import ERROR_STRINGS, REFUSAL_STRINGS
from app.strings.fsrs import FSRS_STRINGS
from app.strings.limits import LIMIT_STRINGS

ENGLISH = 1  # index of the English wording in a (zh, en) pair


class AppError(Exception):
    """A request the app refuses; `status` is the HTTP status it maps to."""

    status: int = 400

    def __init__(self, code: str, /, *, key: str | None = None, **values: object) -> None:
        super().__init__(code)
        self.code = code
        self.key = key or f"error.{code}"
        self.values = values

    def say(self, pairs: dict[str, tuple[str, str]], index: int) -> str:
        """The message in the language at `index` of the (zh, en) pairs; the key if it has none."""
        pair = pairs.get(self.key)
        return pair[index].format(**self.values) if pair else self.key

    def __str__(self) -> str:
        return self.say(_ENGLISH_TABLES, ENGLISH)


_ENGLISH_TABLES = ERROR_STRINGS | REFUSAL_STRINGS | FSRS_STRINGS | LIMIT_STRINGS


class Invalid(AppError):
    """The request's values are wrong; sending it again unchanged will fail again."""


class NotSignedIn(AppError):
    status = 401


class WrongCredentials(AppError):
    status = 401


class Forbidden(AppError):
    status = 403


class NotFound(AppError):
    status = 404


class Conflict(AppError):
    """The request clashes with what is stored now (a newer version, a used invite)."""

    status = 409


class TooLarge(AppError):
    status = 413


class WrongType(AppError):
    status = 415


class Throttled(AppError):
    status = 429


class Busy(AppError):
    status = 503
