"""Shared steps for the issue tests."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient

CREATE = """
mutation($input: CreateIssueInput!) {
  createIssue(input: $input) { issue { id ticketNumber status } error { code message } }
}
"""
UPDATE = """
mutation($input: UpdateIssueInput!) {
  updateIssue(input: $input) {
    issue { id subject status priority updatedAt }
    error { code message fields { field code } }
  }
}
"""
REPLY = """
mutation($input: ReplyToIssueInput!) {
  replyToIssue(input: $input) {
    issue { id status messageCount }
    message { id senderName body createdAt }
    error { code message fields { field code } }
  }
}
"""


def new_issue(api: GraphQLClient, **overrides: Any) -> dict[str, Any]:
    values = {
        "subject": "Printer on fire",
        "body": "It is on fire.",
        "requesterEmail": "moss@example.com",
        "requesterName": "Maurice Moss",
    }
    values.update(overrides)
    payload = api.ok(CREATE, {"input": values})["createIssue"]
    assert payload["error"] is None, payload
    issue: dict[str, Any] = payload["issue"]
    return issue


def update(api: GraphQLClient, issue_id: str, **changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(UPDATE, {"input": {"id": issue_id, **changes}})["updateIssue"]
    return payload


def reply(api: GraphQLClient, issue_id: str, body: str | None, **extra: Any) -> dict[str, Any]:
    values = {"issueId": issue_id, **extra}
    if body is not None:
        values["body"] = body
    payload: dict[str, Any] = api.ok(REPLY, {"input": values})["replyToIssue"]
    return payload


ADD_NOTE = """
mutation($input: AddNoteInput!) {
  addNote(input: $input) {
    issue { id status messageCount updatedAt }
    message { id senderName body visibility }
    error { code message fields { field code } }
  }
}
"""


def add_note(api: GraphQLClient, issue_id: str, body: str | None) -> dict[str, Any]:
    values: dict[str, Any] = {"issueId": issue_id}
    if body is not None:
        values["body"] = body
    payload: dict[str, Any] = api.ok(ADD_NOTE, {"input": values})["addNote"]
    return payload
