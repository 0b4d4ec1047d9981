"""Each answer the REST interface gives, success and every failure, checked by schemathesis
against the served document: a documented status code, content type, headers and body.
(Generated requests rarely reach a 200, a 403, a 413, a 415 or a 429; these do.) The HTTP
door of e-mail, POST /v1/inbound-email, is here too: its token is a mailbox's."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests
import schemathesis
from schemathesis import Case
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import WorkspaceFixture, make_workspace
from tests.factories import missing_id
from tests.graphql.mailboxes.helpers import new_mailbox
from tests.http.test_rate_limits import fresh_address
from tests.rest.client import ISSUE
from tests.servers import RunningServer

CONFORMANCE = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
JSON = {"Content-Type": "application/json"}


def conforms(server: RunningServer, operation_id: str, response: requests.Response) -> None:
    schema = schemathesis.openapi.from_url(f"{server.base_url}/v1/openapi.json")
    case: Case = schema.find_operation_by_id(operation_id).Case()
    case.validate_response(response, checks=CONFORMANCE)


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


Send = Callable[[WorkspaceFixture, str], requests.Response]


def create(body: Any = ISSUE, **headers: str) -> Send:
    def send(workspace: WorkspaceFixture, url: str) -> requests.Response:
        return requests.post(
            f"{url}/v1/issues", json=body, headers={**bearer(workspace.key), **headers}, timeout=30
        )

    return send


def create_raw(content: bytes, content_type: str) -> Send:
    def send(workspace: WorkspaceFixture, url: str) -> requests.Response:
        headers = {**bearer(workspace.key), "Content-Type": content_type}
        return requests.post(f"{url}/v1/issues", data=content, headers=headers, timeout=30)

    return send


def create_with_key(scopes: list[str], legacy: bool = False) -> Send:
    def send(workspace: WorkspaceFixture, url: str) -> requests.Response:
        key = workspace.create_key(scopes, legacy=legacy)
        return requests.post(f"{url}/v1/issues", json=ISSUE, headers=bearer(key), timeout=30)

    return send


CREATE_ANSWERS: dict[str, tuple[int, Send]] = {
    "created": (201, create()),
    "created by a legacy key": (201, create_with_key([], legacy=True)),
    "not JSON": (400, create_raw(b"{oops", "application/json")),
    "no key": (401, lambda _, url: requests.post(f"{url}/v1/issues", json=ISSUE, timeout=30)),
    "no scope": (403, create_with_key(["issues:read"])),
    "too large": (413, create({**ISSUE, "body": "x" * (1024 * 1024)})),
    "not JSON text": (415, create_raw(b"subject=x", "application/x-www-form-urlencoded")),
    "invalid": (422, create({"subject": 1})),
    "another method": (
        405,
        lambda w, url: requests.put(
            f"{url}/v1/issues", json=ISSUE, headers=bearer(w.key), timeout=30
        ),
    ),
}


@pytest.mark.parametrize("answer", CREATE_ANSWERS)
def test_every_answer_of_create_issue_is_documented(
    workspace: WorkspaceFixture, answer: str
) -> None:
    status, send = CREATE_ANSWERS[answer]

    response = send(workspace, workspace.server.base_url)

    assert response.status_code == status, response.text
    conforms(workspace.server, "createIssue", response)


def test_every_answer_of_get_issue_is_documented(workspace: WorkspaceFixture) -> None:
    url = workspace.server.base_url
    created = create()(workspace, url).json()
    legacy = workspace.create_key([], legacy=True)

    issue_url = f"{url}/v1/issues/{created['id']}"

    def internal(value: str) -> requests.Response:
        return requests.get(
            issue_url,
            params={"include_internal": value},
            headers=bearer(workspace.key),
            timeout=30,
        )

    answers = [
        requests.get(issue_url, headers=bearer(workspace.key), timeout=30),
        internal("true"),
        requests.get(issue_url, timeout=30),
        requests.get(issue_url, headers=bearer(legacy), timeout=30),
        requests.get(
            f"{url}/v1/issues/{missing_id('Issue')}", headers=bearer(workspace.key), timeout=30
        ),
        internal("maybe"),
        requests.delete(
            f"{url}/v1/issues/{created['id']}", headers=bearer(workspace.key), timeout=30
        ),
    ]

    assert [a.status_code for a in answers] == [200, 200, 401, 403, 404, 422, 405]
    for response in answers:
        conforms(workspace.server, "getIssue", response)


def test_a_spent_rate_limit_is_documented(throttled_server: RunningServer) -> None:
    workspace = make_workspace(throttled_server)
    url = throttled_server.base_url
    key = workspace.create_key(["issues:read", "issues:create"])
    guesser = {**bearer("svc_mk_nothing"), "X-Forwarded-For": fresh_address()}

    answers = [create()(workspace, url) for _ in range(3)] + [
        requests.post(f"{url}/v1/issues", json=ISSUE, headers=bearer(key), timeout=30)
        for _ in range(4)
    ]
    failed_keys = [
        requests.get(
            f"{url}/v1/issues/{missing_id('Issue')}",
            headers=guesser,
            timeout=30,
        )
        for _ in range(3)
    ]

    assert [a.status_code for a in answers] == [201, 201, 201, 201, 201, 201, 429]
    assert [a.status_code for a in failed_keys] == [401, 401, 429]
    conforms(throttled_server, "createIssue", answers[-1])
    conforms(throttled_server, "getIssue", failed_keys[-1])


# --- POST /v1/inbound-email: a mailbox's token, raw mail -----------------------------------

MAIL = {"Content-Type": "message/rfc822"}


def raw_mail(address: str) -> bytes:
    return (
        f"From: Alice <alice@customer.test>\r\nTo: {address}\r\nSubject: Printer on fire\r\n"
        f"Message-ID: <{secrets.token_hex(8)}@customer.test>\r\n\r\nIt is on fire.\r\n"
    ).encode()


def post_mail(url: str, body: bytes, **headers: str) -> requests.Response:
    return requests.post(f"{url}/v1/inbound-email", data=body, headers=headers, timeout=30)


def test_every_answer_of_receive_inbound_email_is_documented(
    workspace: WorkspaceFixture,
) -> None:
    url = workspace.server.base_url
    made = new_mailbox(workspace.client())
    token, address = made["inboundToken"], made["mailbox"]["address"]
    first = raw_mail(address)

    answers = [
        post_mail(url, first, **bearer(token), **MAIL),
        post_mail(url, first, **bearer(token), **MAIL),
        post_mail(url, b"not a mail at all", **bearer(token), **MAIL),
        post_mail(url, b"", **bearer(token), **MAIL),
        post_mail(url, first, **MAIL),
        post_mail(url, first, **bearer(workspace.key), **MAIL),
        requests.get(f"{url}/v1/inbound-email", headers=bearer(token), timeout=30),
        post_mail(url, first, **bearer(token), **JSON),
    ]

    assert [a.status_code for a in answers] == [202, 200, 202, 400, 401, 401, 405, 415]
    assert answers[1].json() == {**answers[0].json(), "duplicate": True}
    assert answers[2].json()["status"] == "parked"
    assert [a.json()["error"]["reason"] for a in answers[4:6]] == ["missing", "invalid"]
    for response in answers:
        conforms(workspace.server, "receiveInboundEmail", response)


@pytest.fixture(scope="module")
def small_mail_server(sqlite_url: str) -> Iterator[RunningServer]:
    """Mail of at most 1 KiB, and 2 failed authentications a minute."""
    running = RunningServer(
        "sqlite", sqlite_url, email_max_bytes=1024, failed_auth_per_minute=2
    ).start()
    yield running
    running.stop()


def test_too_large_mail_and_guessed_tokens_are_documented(
    small_mail_server: RunningServer,
) -> None:
    workspace = make_workspace(small_mail_server)
    url = small_mail_server.base_url
    made = new_mailbox(workspace.client())
    token, address = made["inboundToken"], made["mailbox"]["address"]
    guesser = {**bearer("mbt_" + "C" * 38), "X-Forwarded-For": fresh_address(), **MAIL}

    too_large = post_mail(url, raw_mail(address) + b"x" * 2000, **bearer(token), **MAIL)
    guesses = [post_mail(url, raw_mail(address), **guesser) for _ in range(3)]

    assert too_large.status_code == 413
    assert too_large.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
    assert [a.status_code for a in guesses] == [401, 401, 429]
    for response in (too_large, *guesses):
        conforms(small_mail_server, "receiveInboundEmail", response)
