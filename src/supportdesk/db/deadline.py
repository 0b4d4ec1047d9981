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
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# SQLite calls the progress handler every this many virtual machine steps.
PROGRESS_STEPS = 10_000

_deadline: ContextVar[float | None] = ContextVar("supportdesk_statement_deadline", default=None)


class DeadlinePassed(BaseException):
    """The request's time-out passed while it was using the database."""


@contextmanager
def statements_within(seconds: float) -> Iterator[None]:
    """Statements run by this context (and the tasks it starts) end within `seconds`."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


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
