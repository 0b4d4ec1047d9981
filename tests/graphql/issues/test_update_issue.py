"""updateIssue and the status machine of CONTRACT section 3, move by move."""

from __future__ import annotations

import pytest

from supportdesk.domain.issues.workflow import STATUSES
from tests.client import GraphQLClient
from tests.graphql.issues.helpers import new_issue, update

# The shortest legal way from `new` to each status.
PATH = {
    "new": [],
    "open": ["open"],
    "pending": ["pending"],
    "on_hold": ["on_hold"],
    "solved": ["solved"],
    "closed": ["solved", "closed"],
}
ALLOWED = (
    {("new", target) for target in ("open", "pending", "on_hold", "solved")}
    | {
        (source, target)
        for source in ("open", "pending", "on_hold")
        for target in ("open", "pending", "on_hold", "solved")
    }
    | {("solved", "open"), ("solved", "closed")}
)


def issue_in(api: GraphQLClient, status: str) -> str:
    issue_id: str = new_issue(api)["id"]
    for step in PATH[status]:
        assert update(api, issue_id, status=step)["error"] is None
    return issue_id


@pytest.mark.parametrize("source", STATUSES)
@pytest.mark.parametrize("target", STATUSES)
def test_each_status_move(api: GraphQLClient, source: str, target: str) -> None:
    issue_id = issue_in(api, source)

    payload = update(api, issue_id, status=target)

    if source == "closed":
        assert payload["error"]["code"] == "ISSUE_CLOSED"
        assert payload["issue"] is None
    elif source == target or (source, target) in ALLOWED:
        assert payload["error"] is None
        assert payload["issue"]["status"] == target
    else:
        assert payload["error"]["code"] == "INVALID_STATUS_TRANSITION"
        assert payload["issue"] is None
    current = api.ok("query($id: ID!) { issue(id: $id) { status } }", {"id": issue_id})
    expected = target if payload["error"] is None else source
    assert current["issue"]["status"] == expected


def test_setting_the_current_status_again_changes_nothing(api: GraphQLClient) -> None:
    issue_id = issue_in(api, "open")
    before = update(api, issue_id, status="open")["issue"]

    after = update(api, issue_id, status="open")["issue"]

    assert after == before


def test_subject_and_priority_change_and_updated_at_moves(api: GraphQLClient) -> None:
    issue = new_issue(api)
    before = api.ok("query($id: ID!) { issue(id: $id) { updatedAt } }", {"id": issue["id"]})

    payload = update(api, issue["id"], subject="  Printer fixed ", priority="URGENT")

    assert payload["error"] is None
    assert payload["issue"]["subject"] == "Printer fixed"
    assert payload["issue"]["priority"] == "urgent"
    assert payload["issue"]["updatedAt"] >= before["issue"]["updatedAt"]


@pytest.mark.parametrize(
    ("changes", "field", "code"),
    [
        ({"status": "escalated"}, "status", "INVALID"),
        ({"priority": "meh"}, "priority", "INVALID"),
        ({"subject": ""}, "subject", "REQUIRED"),
        ({"subject": "s" * 256}, "subject", "TOO_LONG"),
    ],
)
def test_bad_changes_are_refused(
    api: GraphQLClient, changes: dict[str, str], field: str, code: str
) -> None:
    issue_id = new_issue(api)["id"]

    payload = update(api, issue_id, **changes)

    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [{"field": field, "code": code}]


@pytest.mark.parametrize(
    "issue_id", ["iss_01JD0000000000000000000000", "ct_01JD0000000000000000000000", "garbage", ""]
)
def test_unknown_issue_is_not_found(api: GraphQLClient, issue_id: str) -> None:
    payload = update(api, issue_id, status="open")

    assert payload["error"]["code"] == "NOT_FOUND"
    assert payload["issue"] is None
