"""Whether this process is shutting down: open streams end then, as a request would, and
their clients resume elsewhere (a stream never finishes by itself, so the server's
graceful shutdown would otherwise wait for it until its time-out)."""

from __future__ import annotations

_stopping = False


def begin() -> None:
    """Called from the server's signal handling: plain assignment, safe there."""
    global _stopping
    _stopping = True


def is_stopping() -> bool:
    return _stopping
