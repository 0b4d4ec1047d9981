"""Scopes of every issue operation, and what legacy keys may do."""

from __future__ import annotations

import pytest

from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import CREATE, REPLY, UPDATE, new_issue

ISSUE_INPUT = {"subject": "s", "body": "b", "requesterEmail": "r@example.com"}

OPERATIONS = {
    "createIssue": (CREATE, lambda issue_id: {"input": ISSUE_INPUT}),
    "updateIssue": (UPDATE, lambda issue_id: {"input": {"id": issue_id, "priority": "low"}}),
    "replyToIssue": (REPLY, lambda issue_id: {"input": {"issueId": issue_id, "body": "hi"}}),
    "issue": ("query($id: ID!) { issue(id: $id) { id } }", lambda issue_id: {"id": issue_id}),
    "issueByNumber": ("{ issueByNumber(ticketNumber: 1) { id } }", lambda issue_id: None),
    "issues": ("{ issues { totalCount } }", lambda issue_id: None),
}
ALLOWED_BY = {
    "createIssue": {"issues:create", "issues:write"},
    "updateIssue": {"issues:write"},
    "replyToIssue": {"thread:reply"},
    "issue": {"issues:read"},
    "issueByNumber": {"issues:read"},
    "issues": {"issues:read"},
}
SCOPES = ["issues:read", "issues:create", "issues:write", "thread:reply", "contacts:read"]


@pytest.mark.parametrize("scope", SCOPES)
def test_each_operation_needs_its_scope(workspace: WorkspaceFixture, scope: str) -> None:
    issue_id = new_issue(workspace.client())["id"]
    client = workspace.client(workspace.create_key([scope]))

    for operation, (query, variables) in OPERATIONS.items():
        answer = client(query, variables(issue_id))
        assert answer.status == 200
        if scope in ALLOWED_BY[operation]:
            assert "FORBIDDEN" not in answer.codes, (operation, answer.body)
            assert answer.data[operation] is not None
        else:
            assert answer.data[operation] is None, operation
            error = answer.error_at(operation)
            assert error["extensions"]["code"] == "FORBIDDEN"
            assert error["extensions"]["requiredScopes"] == sorted(ALLOWED_BY[operation])


def test_a_legacy_key_creates_issues_and_does_nothing_else(workspace: WorkspaceFixture) -> None:
    legacy = workspace.client(workspace.create_key([], legacy=True))
    assert legacy.key is not None and legacy.key.startswith("svc_live_")

    created = legacy.ok(
        """mutation($input: CreateIssueInput!) {
          createIssue(input: $input) { issue { id ticketNumber subject status priority } error { code } }
        }""",
        {"input": {**ISSUE_INPUT, "priority": "High"}},
    )["createIssue"]

    assert created["error"] is None
    assert created["issue"]["status"] == "new"  # plain values of what it just made are readable
    assert created["issue"]["priority"] == "high"
    for operation, (query, variables) in OPERATIONS.items():
        if operation != "createIssue":
            answer = legacy(query, variables(created["issue"]["id"]))
            assert answer.error_at(operation)["extensions"]["code"] == "FORBIDDEN"
    info = legacy("{ apiInfo }")
    assert info.data["apiInfo"] is None
    assert info.codes == ["FORBIDDEN"]


def test_relations_need_their_own_scopes(workspace: WorkspaceFixture) -> None:
    creator = workspace.client(workspace.create_key(["issues:create"]))

    answer = creator(
        """mutation($input: CreateIssueInput!) {
          createIssue(input: $input) {
            issue { id subject requester { email } messages(first: 1) { totalCount } }
            error { code }
          }
        }""",
        {"input": ISSUE_INPUT},
    )

    issue = answer.data["createIssue"]["issue"]
    assert issue["subject"] == "s"
    assert issue["requester"] is None
    assert issue["messages"] is None
    requester = answer.error_at("createIssue", "issue", "requester")["extensions"]
    messages = answer.error_at("createIssue", "issue", "messages")["extensions"]
    assert requester == {"code": "FORBIDDEN", "requiredScopes": ["contacts:read"]}
    assert messages == {"code": "FORBIDDEN", "requiredScopes": ["issues:read"]}


def test_a_reader_without_contacts_read_sees_the_issue_but_not_the_requester(
    workspace: WorkspaceFixture,
) -> None:
    issue_id = new_issue(workspace.client())["id"]
    reader = workspace.client(workspace.create_key(["issues:read"]))

    answer = reader(
        "query($id: ID!) { issue(id: $id) { subject requester { email } messages { totalCount } } }",
        {"id": issue_id},
    )

    assert answer.data["issue"]["subject"] == "Printer on fire"
    assert answer.data["issue"]["messages"] == {"totalCount": 1}
    assert answer.data["issue"]["requester"] is None
    assert answer.error_at("issue", "requester")["extensions"]["code"] == "FORBIDDEN"
