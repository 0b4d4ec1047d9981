"""Logging for `supportdesk serve`: one JSON object per line on stderr.

Records may carry structured `fields` (`logger.info("request", extra={"fields": {...}})`);
they become keys of the line. Tracebacks go in `traceback`. Secrets never reach a logger:
keys are named by their prefix only.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

import orjson

# Nothing we log names its thread or its multiprocessing process, and finding them out is
# a fifth of what a log record costs to make: every request writes one (the access log).
# Set on import, which uvicorn's dictConfig does in each worker through our formatters.
logging.logThreads = False
logging.logMultiprocessing = False

# A runaway recursion formats into a traceback of over 100 KB; one line of the log should
# not. The outermost frames say where the request entered, the innermost what failed.
TRACEBACK_HEAD = 2_000
TRACEBACK_TAIL = 6_000


def short_traceback(text: str) -> str:
    """The traceback's beginning and end, with what lies between left out and counted."""
    if len(text) <= TRACEBACK_HEAD + TRACEBACK_TAIL:
        return text
    left_out = len(text) - TRACEBACK_HEAD - TRACEBACK_TAIL
    return (
        f"{text[:TRACEBACK_HEAD]}\n... {left_out:,} characters left out ...\n"
        f"{text[-TRACEBACK_TAIL:]}"
    )


class _UtcSeconds:
    """`created` as ISO 8601 in UTC, to the millisecond: what
    `datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")` gives, at a
    quarter of its cost, the date and time of the current second being kept."""

    def __init__(self) -> None:
        self._second = -1
        self._text = ""

    def __call__(self, created: float) -> str:
        # Rounded to the microsecond first, as datetime does, then cut to the millisecond.
        fraction, whole = math.modf(created)
        micro = round(fraction * 1_000_000)
        second = int(whole) + micro // 1_000_000
        micro %= 1_000_000
        if second != self._second:
            self._text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = second
        return f"{self._text}.{micro // 1000:03d}+00:00"


class JsonFormatter(logging.Formatter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timestamp = _UtcSeconds()

    def formatException(self, ei: Any) -> str:
        return short_traceback(super().formatException(ei))

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": self._timestamp(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,  # which worker of `serve --workers N`
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


class PlainFormatter(logging.Formatter):
    """For people at a terminal (SUPPORTDESK_LOG_JSON=false): fields after the message."""

    def formatException(self, ei: Any) -> str:
        return short_traceback(super().formatException(ei))

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            details = " ".join(f"{k}={v}" for k, v in fields.items() if v is not None)
            text = f"{text} {details}"
        return text


def logging_config(json_lines: bool = True, level: str = "INFO") -> dict[str, Any]:
    """A dictConfig for the service and uvicorn (uvicorn applies it in every worker)."""
    formatter: dict[str, Any] = (
        {"()": JsonFormatter}
        if json_lines
        else {"()": PlainFormatter, "format": "%(asctime)s %(levelname)s %(name)s %(message)s"}
    )
    handler = {"class": "logging.StreamHandler", "stream": "ext://sys.stderr", "formatter": "main"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"main": formatter},
        "handlers": {"stderr": handler},
        "loggers": {
            "supportdesk": {"level": level, "handlers": ["stderr"], "propagate": False},
            "uvicorn": {"level": "WARNING", "handlers": ["stderr"], "propagate": False},
        },
    }
