"""A request's time-out, as the database layer sees it.

`asyncio.timeout` stops a request only where it waits; SQLite's statements run on the event
loop's thread (`connection.py`) and never do. So the request also sets a deadline here:
no statement starts after it, and a SQLite statement still running when it passes is
interrupted by the connection's progress handler. Either way `DeadlinePassed` goes up to
the request, past the executor's error handling (a BaseException, as a cancellation is),
and a transaction in its way is rolled back.
"""

from __future__ import annotations

import time
from contextvars import ContextVar

# SQLite calls the progress handler every this many virtual machine steps.
PROGRESS_STEPS = 10_000

_deadline: ContextVar[float | None] = ContextVar("supportdesk_statement_deadline", default=None)


class DeadlinePassed(BaseException):
    """The request's time-out passed while it was using the database."""


class statements_within:  # lower case: used as a function, `with statements_within(s):`
    """Statements run by this context (and the tasks it starts) end within `seconds`. A
    class, not a generator: it wraps every request."""

    __slots__ = ("_seconds", "_token")

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds

    def __enter__(self) -> None:
        self._token = _deadline.set(time.monotonic() + self._seconds)

    def __exit__(self, *_exception: object) -> None:
        _deadline.reset(self._token)


def passed() -> bool:
    deadline = _deadline.get()
    return deadline is not None and time.monotonic() > deadline


def check() -> None:
    """Raises DeadlinePassed when the current request's deadline has passed."""
    if passed():
        raise DeadlinePassed


def progress() -> int:
    """SQLite's progress handler: non-zero interrupts the running statement."""
    return 1 if passed() else 0
