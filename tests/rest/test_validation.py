"""Bodies POST /v1/issues refuses (CONTRACT sections 6, 7 and 13): 422 VALIDATION_FAILED
naming each field by its REST name with the GraphQL API's field codes; 400, 413 and 415
for bodies that are no JSON object."""

from __future__ import annotations

from typing import Any

import pytest

from supportdesk.domain.issues.actions import MAX_BODY, MAX_NAME, MAX_SUBJECT
from tests.client import GraphQLClient
from tests.rest.client import ISSUE, RestClient

MISSING = object()


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("subject", MISSING, "REQUIRED"),
        ("subject", None, "REQUIRED"),
        ("subject", "   ", "REQUIRED"),
        ("subject", "x" * (MAX_SUBJECT + 1), "TOO_LONG"),
        ("subject", "a\x00b", "INVALID"),
        ("subject", 42, "INVALID"),
        ("body", MISSING, "REQUIRED"),
        ("body", "\n\t ", "REQUIRED"),
        ("body", "x" * (MAX_BODY + 1), "TOO_LONG"),
        ("body", "a\x00b", "INVALID"),
        ("body", ["text"], "INVALID"),
        ("requester_email", MISSING, "REQUIRED"),
        ("requester_email", "not an address", "INVALID"),
        ("requester_email", "a@" + "b" * 250 + ".com", "TOO_LONG"),
        ("requester_email", {"address": "a@example.com"}, "INVALID"),
        ("requester_name", "n" * (MAX_NAME + 1), "TOO_LONG"),
        ("requester_name", True, "INVALID"),
        ("priority", "whenever", "INVALID"),
        ("priority", 1, "INVALID"),
    ],
)
def test_a_bad_field_is_named_with_its_code(
    rest: RestClient, api: GraphQLClient, field: str, value: Any, code: str
) -> None:
    body = {name: v for name, v in ISSUE.items() if name != field}
    if value is not MISSING:
        body[field] = value

    reply = rest.create(body)

    assert reply.status == 422, reply.body
    assert reply.code == "VALIDATION_FAILED"
    assert reply.fields == [(field, code)]
    assert field in reply.error["message"]
    assert reply.headers["x-ratelimit-limit"]
    assert api.ok("{ issues { totalCount } }")["issues"]["totalCount"] == 0


def test_the_longest_values_are_accepted(rest: RestClient) -> None:
    reply = rest.create(
        {
            "subject": "s" * MAX_SUBJECT,
            "body": "b" * MAX_BODY,
            "requester_email": "a@" + "b" * 248 + ".com",
            "requester_name": "n" * MAX_NAME,
            "priority": " Urgent ",
        }
    )

    assert reply.status == 201, reply.body
    assert reply.body["priority"] == "urgent"


def test_every_bad_field_is_named_at_once(rest: RestClient) -> None:
    reply = rest.create({"subject": "", "body": "", "requester_email": "nobody"})

    assert reply.status == 422
    assert sorted(reply.fields) == [
        ("body", "REQUIRED"),
        ("requester_email", "INVALID"),
        ("subject", "REQUIRED"),
    ]


def test_the_message_says_what_each_field_takes_by_its_rest_name(rest: RestClient) -> None:
    reply = rest.create(
        {"subject": "x" * 256, "body": "Help", "requester_email": "nobody", "priority": "asap"}
    )

    message = reply.error["message"]
    assert message.startswith("Invalid input: priority, requester_email, subject.")
    assert "subject takes at most 255 characters." in message
    assert "requester_email is not an e-mail address." in message
    assert "priority is one of low, normal, high, urgent." in message
    assert "requesterEmail" not in message


def test_an_oversize_idempotency_key_is_named_by_its_header(rest: RestClient) -> None:
    reply = rest.create(idempotency_key="k" * 256)

    assert reply.status == 422
    assert reply.fields == [("Idempotency-Key", "TOO_LONG")]


@pytest.mark.parametrize("content", [b"{oops", b"", b'{"subject": "x",}'])
def test_a_body_that_is_not_json_is_a_bad_request(rest: RestClient, content: bytes) -> None:
    reply = rest.request(
        "POST",
        "/v1/issues",
        content=content,
        headers=rest.headers(**{"Content-Type": "application/json"}),
    )

    assert reply.status == 400
    assert reply.code == "BAD_REQUEST"
    assert reply.fields == []


@pytest.mark.parametrize("content", [b'[{"subject": "x"}]', b'"issue"', b"42", b"null"])
def test_a_body_that_is_not_an_object_is_a_bad_request(rest: RestClient, content: bytes) -> None:
    reply = rest.request(
        "POST",
        "/v1/issues",
        content=content,
        headers=rest.headers(**{"Content-Type": "application/json"}),
    )

    assert reply.status == 400
    assert reply.code == "BAD_REQUEST"
    assert reply.error["message"] == "The body must be a JSON object."


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin-1", ""],
)
def test_a_body_that_is_not_json_text_is_an_unsupported_media_type(
    rest: RestClient, content_type: str
) -> None:
    reply = rest.request(
        "POST",
        "/v1/issues",
        content=b'{"subject": "x"}',
        headers=rest.headers(**{"Content-Type": content_type}),
    )

    assert reply.status == 415
    assert reply.code == "UNSUPPORTED_MEDIA_TYPE"


def test_a_body_over_the_limit_is_refused_unread(rest: RestClient) -> None:
    reply = rest.create({**ISSUE, "body": "x" * (1024 * 1024)})

    assert reply.status == 413
    assert reply.code == "PAYLOAD_TOO_LARGE"
    assert reply.error["max_bytes"] == 1024 * 1024
