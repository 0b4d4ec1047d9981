"""Issue status and priority rules (docs/api.md)."""

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


def refusal_of(status: str, merged_into: str | None = None) -> ErrorCode | None:
    """Why an issue takes no more changes, if it does not: it was merged into another (whose
    id says where its thread went), or it is closed."""
    if merged_into is not None:
        return ErrorCode.ISSUE_MERGED
    if status == "closed":
        return ErrorCode.ISSUE_CLOSED
    return None


def ensure_open_for_changes(status: str, merged_into: str | None = None) -> None:
    """A closed issue is terminal: every mutation on it is refused; a merged one says so."""
    refusal = refusal_of(status, merged_into)
    if refusal is ErrorCode.ISSUE_MERGED:
        raise DomainError(
            refusal, f"The issue was merged into {merged_into}; change that one instead."
        )
    if refusal is ErrorCode.ISSUE_CLOSED:
        raise DomainError(refusal, "The issue is closed; it cannot change any more.")


def check_transition(current: str, target: str) -> None:
    """Raise unless `current` may move to `target`; staying put is always allowed."""
    ensure_open_for_changes(current)
    if target != current and target not in TRANSITIONS[current]:
        raise DomainError(
            ErrorCode.INVALID_STATUS_TRANSITION,
            f"An issue cannot move from {current!r} to {target!r}.",
        )
