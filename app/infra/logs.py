"""Log records that carry the request they belong to, as text or as one JSON object a line."""

import json
import logging
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from app.config import LogFormat, LogLevel
from app.infra.terminal import printable

# Set by app.web.observe.AccessLog for each request. Each request runs in its own task, and
# sync routes run in threads that copy the task's context, so every record logged while a request
# is being answered (its exception handler included) sees its id.
REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)


TEXT_FORMAT = "%(levelname)s: %(request_tag)s%(message)s"

# Fields an access-log record carries beside its message, kept as fields in JSON logs.
ACCESS_FIELDS = ("method", "path", "status", "duration_ms", "client")


class RequestIdFilter(logging.Filter):
    """Stamp every record with the current request's id (`request_id`, `request_tag`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        request_id = REQUEST_ID.get()
        record.request_id = request_id
        record.request_tag = f"[{request_id}] " if request_id else ""
        return True


class TextFormatter(logging.Formatter):
    """Records as text, each message one line with its control characters escaped.

    Messages carry file names, note text and request paths from anyone; a traceback keeps its
    line breaks and nothing else.
    """

    def formatMessage(self, record: logging.LogRecord) -> str:
        return printable(super().formatMessage(record))

    def formatException(self, ei: Any) -> str:
        return printable(super().formatException(ei), lines=True)

    def formatStack(self, stack_info: str) -> str:
        return printable(super().formatStack(stack_info), lines=True)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, process, request id, error."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,  # which worker, when there are several
        }
        if request_id := getattr(record, "request_id", None):
            entry["request_id"] = request_id
        for field in ACCESS_FIELDS:
            if hasattr(record, field):
                entry[field] = getattr(record, field)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        # JSON escapes C0 itself; C1, DEL and bidi characters become `\u…` escapes of the same text.
        return printable(json.dumps(entry, ensure_ascii=False))


def log_config(*, level: LogLevel, fmt: LogFormat) -> dict[str, Any]:
    """A `logging.config.dictConfig` for the server, its workers and uvicorn.

    Classes are named by their import path: worker processes receive the configuration pickled.
    """
    formatter = (
        {"()": "app.infra.logs.JsonFormatter"}
        if fmt == "json"
        else {"()": "app.infra.logs.TextFormatter", "fmt": TEXT_FORMAT}
    )
    name = level.upper()
    # Alembic reports every step of every start at INFO; its warnings still show.
    quiet = "DEBUG" if level == "debug" else "WARNING"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "app.infra.logs.RequestIdFilter"}},
        "formatters": {"default": formatter},
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "default",
                "filters": ["request_id"],
            }
        },
        "root": {"handlers": ["default"], "level": name},
        "loggers": {
            # uvicorn's own configuration would give these handlers of their own.
            "uvicorn": {"handlers": [], "level": name, "propagate": True},
            "uvicorn.error": {"handlers": [], "level": name, "propagate": True},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": True},
            "alembic": {"level": quiet},
        },
    }
