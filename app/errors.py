"""The errors the app's functions raise for a request they refuse, with their HTTP status."""


class StudyError(Exception):
    """A request refused; `status` is the HTTP status it maps to."""

    status = 400


class NotFound(StudyError):
    status = 404


class Conflict(StudyError):
    status = 409
