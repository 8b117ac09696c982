"""The errors the app's functions raise for a request they refuse, with their HTTP status."""


class StudyError(Exception):
    """A request refused; `status` is the HTTP status it maps to."""

    status = 400


class NotFound(StudyError):
    status = 404


class Conflict(StudyError):
    status = 409


class Refusal(StudyError):
    """A refusal worded by an interface string, said in the reader's language.

    `key` names the string (app/web/strings_*.py) and `values` fill its fields; str() is the
    key, so the web layer, which knows the language, words it.
    """

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values
