"""The REST shapes (docs/rest-v1.md): snake_case JSON in and out, read into and written
from the domain's own objects. The rules on the values (required, lengths, priorities) are
the domain's; this module only checks that each field is a JSON string."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import QueryParams

from supportdesk.domain.attachments import Attachment
from supportdesk.domain.attachments.models import content_path
from supportdesk.domain.clock import rfc3339
from supportdesk.domain.issues import Issue, Message, NewIssue
from supportdesk.domain.issues.models import PUBLIC
from supportdesk.rest.errors import bad_request, validation_failed

IDEMPOTENCY_HEADER = "Idempotency-Key"
# GET /v1/issues/{id}?include_internal=true: the thread with its internal notes.
INCLUDE_INTERNAL = "include_internal"

# The body of POST /v1/issues: each REST field and the domain's name for it (the name its
# field errors carry, as GraphQL's input does).
BODY_FIELDS: dict[str, str] = {
    "subject": "subject",
    "body": "body",
    "requester_email": "requesterEmail",
    "requester_name": "requesterName",
    "priority": "priority",
}
# The domain's field names as REST clients know them.
REST_NAMES: dict[str, str] = {
    **{domain: rest for rest, domain in BODY_FIELDS.items()},
    "idempotencyKey": IDEMPOTENCY_HEADER,
}


def new_issue(data: Any, idempotency_key: str | None) -> NewIssue:
    """The domain's input from a request body; 400 unless it is an object, 422 naming each
    field that is not a string (or null)."""
    if not isinstance(data, dict):
        raise bad_request("The body must be a JSON object.")
    mistyped = [
        (name, "INVALID")
        for name in BODY_FIELDS
        if data.get(name) is not None and not isinstance(data[name], str)
    ]
    if mistyped:
        raise validation_failed(mistyped)
    return NewIssue(
        subject=data.get("subject"),
        body=data.get("body"),
        requester_email=data.get("requester_email"),
        requester_name=data.get("requester_name"),
        priority=data.get("priority"),
        idempotency_key=idempotency_key,
    )


def thread_visibility(query: QueryParams) -> str | None:
    """The messages GET /v1/issues/{id} shows: the public ones (the interface predates
    internal notes, and its integrations may show the thread to the requester), or all of
    them (None) with `include_internal=true`. 422 for any other value, or for the
    parameter given twice."""
    given = query.getlist(INCLUDE_INTERNAL)
    if not given:
        return PUBLIC
    if len(given) == 1 and given[0] in ("true", "false"):
        return None if given[0] == "true" else PUBLIC
    raise validation_failed([(INCLUDE_INTERNAL, "INVALID")])


def issue_json(issue: Issue) -> dict[str, Any]:
    return {
        "id": issue.id,
        "ticket_number": issue.ticket_number,
        "subject": issue.subject,
        "status": issue.status,
        "priority": issue.priority,
        "created_at": rfc3339(issue.created_at),
    }


def attachment_json(attachment: Attachment, base_url: str) -> dict[str, Any]:
    return {
        "id": attachment.id,
        "file_name": attachment.file_name,
        "size_bytes": attachment.size_bytes,
        "content_type": attachment.content_type,
        "download_url": base_url + content_path(attachment.id),
    }


def message_json(message: Message, files: list[Attachment], base_url: str) -> dict[str, Any]:
    return {
        "id": message.id,
        "sender_name": message.sender_name,
        "body": message.body,
        "visibility": message.visibility,
        "created_at": rfc3339(message.created_at),
        "attachments": [attachment_json(file, base_url) for file in files],
    }


def issue_with_messages_json(
    issue: Issue,
    messages: list[Message],
    files: dict[str, list[Attachment]],
    base_url: str,
) -> dict[str, Any]:
    """The issue and its messages, each with its attachments (`files`, by message id)."""
    shown = [message_json(m, files.get(m.id, []), base_url) for m in messages]
    return {**issue_json(issue), "messages": shown}
