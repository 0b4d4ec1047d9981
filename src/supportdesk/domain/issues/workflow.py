"""Issue status and priority rules (CONTRACT section 3)."""

from __future__ import annotations

from supportdesk.domain.errors import DomainError, ErrorCode

STATUSES = ("new", "open", "pending", "on_hold", "solved", "closed")
PRIORITIES = ("low", "normal", "high", "urgent")
DEFAULT_PRIORITY = "normal"
INITIAL_STATUS = "new"

_WORKING = frozenset({"open", "pending", "on_hold"})
# Where each status may go (besides staying where it is). Nothing returns to `new`;
# `closed` is reached only through `solved`, as in the help desks integrators know.
TRANSITIONS: dict[str, frozenset[str]] = {
    "new": _WORKING | {"solved"},
    "open": _WORKING | {"solved"},
    "pending": _WORKING | {"solved"},
    "on_hold": _WORKING | {"solved"},
    "solved": frozenset({"open", "closed"}),
    "closed": frozenset(),
}


def ensure_open_for_changes(status: str) -> None:
    """A closed issue is terminal: every mutation on it is refused."""
    if status == "closed":
        raise DomainError(ErrorCode.ISSUE_CLOSED, "The issue is closed; it cannot change any more.")


def check_transition(current: str, target: str) -> None:
    """Raise unless `current` may move to `target`; staying put is always allowed."""
    ensure_open_for_changes(current)
    if target != current and target not in TRANSITIONS[current]:
        raise DomainError(
            ErrorCode.INVALID_STATUS_TRANSITION,
            f"An issue cannot move from {current!r} to {target!r}.",
        )
