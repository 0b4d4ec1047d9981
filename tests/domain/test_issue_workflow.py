"""The status machine of CONTRACT section 3, as a rule of the domain."""

from __future__ import annotations

import pytest

from supportdesk.domain.errors import DomainError, ErrorCode
from supportdesk.domain.issues.workflow import STATUSES, check_transition


def outcome(source: str, target: str) -> str:
    try:
        check_transition(source, target)
    except DomainError as error:
        return str(error.code)
    return "ok"


@pytest.mark.parametrize("status", STATUSES[:-1])
def test_staying_put_is_always_allowed_until_closed(status: str) -> None:
    assert outcome(status, status) == "ok"


@pytest.mark.parametrize("target", STATUSES)
def test_closed_is_terminal(target: str) -> None:
    assert outcome("closed", target) == ErrorCode.ISSUE_CLOSED


@pytest.mark.parametrize("source", ["open", "pending", "on_hold", "solved"])
def test_nothing_returns_to_new(source: str) -> None:
    assert outcome(source, "new") == ErrorCode.INVALID_STATUS_TRANSITION


def test_working_statuses_move_freely_and_to_solved() -> None:
    working = ["open", "pending", "on_hold"]
    for source in ["new", *working]:
        for target in [*working, "solved"]:
            assert outcome(source, target) == "ok", (source, target)


def test_closed_is_reached_only_from_solved() -> None:
    assert [s for s in STATUSES if outcome(s, "closed") == "ok"] == ["solved"]


def test_solved_reopens_or_closes_only() -> None:
    assert [t for t in STATUSES if t != "solved" and outcome("solved", t) == "ok"] == [
        "open",
        "closed",
    ]
