"""A 429 is waited out and sent again; createIssue carries an idempotency key, so that a
call sent twice creates one issue."""

from __future__ import annotations

import json

import httpx
import pytest

from supportdesk.http import rate_limit
from supportdesk_client import Client, ServerError
from tests.client_python.conftest import STRICT_RATE_LIMIT
from tests.conftest import make_workspace
from tests.servers import RunningServer

ISSUE = {
    "subject": "Printer on fire",
    "body": "It is on fire.",
    "requester_email": "moss@example.com",
}


class RecordingTransport(httpx.HTTPTransport):
    """The real transport, remembering what went out and what came back."""

    def __init__(self) -> None:
        super().__init__()
        self.exchanges: list[tuple[dict[str, object], int]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        self.exchanges.append((json.loads(request.content), response.status_code))
        return response


@pytest.fixture
def short_minutes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rate limit's window made 2 s long, so that a test waits out a 429 in seconds
    instead of a minute; the limiter itself is the server's own."""
    monkeypatch.setattr(rate_limit, "PERIOD_SECONDS", 2)


def _issue_count(client: Client) -> int:
    page = client.graphql.issues(first=0)
    assert page is not None
    return page.total_count


@pytest.mark.usefixtures("short_minutes")
def test_a_429_is_retried_after_retry_after_and_creates_once(strict_server: RunningServer) -> None:
    workspace = make_workspace(strict_server)
    transport = RecordingTransport()
    with Client(strict_server.base_url, workspace.key, transport=transport) as client:
        for _ in range(STRICT_RATE_LIMIT - 1):
            client.api_info()

        created = client.issues.create(**ISSUE)  # the last request of the window
        again = client.issues.create(**ISSUE)  # refused with 429, then sent again

        assert _issue_count(client) == 2
    creates = [
        (body, status)
        for body, status in transport.exchanges
        if body["operationName"] == "CreateIssue"
    ]
    assert [status for _, status in creates] == [200, 429, 200]
    keys = [body["variables"]["input"]["idempotencyKey"] for body, _ in creates]  # type: ignore[index]
    assert keys[1] == keys[2] != keys[0]
    assert created.id != again.id


def test_the_same_idempotency_key_gives_the_same_issue(strict_server: RunningServer) -> None:
    workspace = make_workspace(strict_server)
    with Client(strict_server.base_url, workspace.key, max_retries=0) as client:
        first = client.issues.create(**ISSUE, idempotency_key="order-4711")
        second = client.issues.create(**ISSUE, idempotency_key="order-4711")

        assert second.id == first.id
        assert _issue_count(client) == 1


def test_a_503_is_retried_for_a_query_but_not_for_a_mutation_that_may_have_run(
    impatient_server: RunningServer,
) -> None:
    workspace = make_workspace(impatient_server)
    transport = RecordingTransport()
    with Client(
        impatient_server.base_url, workspace.key, max_retries=2, transport=transport
    ) as client:
        with pytest.raises(ServerError) as timed_out:
            client.issues.get_by_number(1)
        with pytest.raises(ServerError):
            client.issues.update("iss_01M81VV4DNE3E2SQWGTC0WK5CT", status="open")

    assert timed_out.value.code == "TIMEOUT" and timed_out.value.status == 503
    sent = [(body["operationName"], status) for body, status in transport.exchanges]
    assert sent == [("IssueByNumber", 503)] * 3 + [("UpdateIssue", 503)]
