"""An answer's bytes are bounded (SUPPORTDESK_MAX_RESPONSE_BYTES), whichever path made it:
the cost counts objects, not what they hold, and 40 aliases of `events(first: 100) { … data }`
made 105.7 MB at a cost of 8,040. Past the limit: one error and no data."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.client import Answer, GraphQLClient
from tests.conftest import WorkspaceFixture, make_workspace
from tests.graphql.issues.helpers import new_issue
from tests.http.conftest import SMALL_ANSWER_BYTES
from tests.http.test_access_log import access_line
from tests.servers import RunningServer

BODY = "All the printers on the third floor are on fire again. " * 100  # 5,600 characters

EVENTS = "{alias}: events(first: {first}) {{ edges {{ node {{ type data }} }} }}"
THREADS = """query($first: Int) {
  issues(first: $first) { edges { node { subject messages { edges { node { body } } } } } }
}"""


@pytest.fixture(scope="module")
def api(small_answers_server: RunningServer) -> GraphQLClient:
    """A workspace of four issues, each told at length; its events hold every body."""
    workspace: WorkspaceFixture = make_workspace(small_answers_server)
    client = workspace.client()
    for n in range(4):
        new_issue(client, subject=f"Fire {n}", body=BODY)
    return client


def refused(answer: Answer) -> dict[str, Any]:
    assert answer.status == 400, answer.body
    assert answer.codes == ["QUERY_TOO_COMPLEX"]
    assert "data" not in answer.body
    assert set(answer.body["extensions"]) == {"cost"}
    extensions: dict[str, Any] = answer.errors[0]["extensions"]
    assert extensions["limit"] == "response_bytes"
    assert extensions["maximum"] == SMALL_ANSWER_BYTES
    assert extensions["excess"] == extensions["response_bytes"] - SMALL_ANSWER_BYTES > 0
    return extensions


def events_aliased(count: int, first: int = 100) -> str:
    return "{ " + " ".join(EVENTS.format(alias=f"e{n}", first=first) for n in range(count)) + " }"


def test_aliased_events_over_the_limit_get_one_error_and_no_data(api: GraphQLClient) -> None:
    two = api(events_aliased(1, first=2))
    assert two.status == 200 and not two.errors
    assert len(two.data["e0"]["edges"]) == 2

    answer = api(events_aliased(3))
    as_graphql_response = api.http.post(
        "/graphql",
        json={"query": events_aliased(3)},
        headers={**api.headers(), "Accept": "application/graphql-response+json"},
    )

    extensions = refused(answer)
    # The answer it would have been: three times four events, each holding a body.
    assert extensions["response_bytes"] > 3 * 4 * len(BODY)
    assert "over the limit of 20,000" in answer.errors[0]["message"]
    assert as_graphql_response.status_code == 400
    assert "data" not in as_graphql_response.json()


@pytest.mark.parametrize("compiled", [True, False])
def test_a_read_over_the_limit_is_refused_on_either_path(
    api: GraphQLClient, compiled: bool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="supportdesk.access")
    asked = {"extensions": {"compiled": compiled}}
    api(THREADS, {"first": 1}, **asked)  # this process now knows the key and the plan

    small = api(THREADS, {"first": 1}, **asked)
    large = api(THREADS, {"first": 4}, **asked)

    assert small.status == 200 and not small.errors
    assert small.body["extensions"]["compiled"] is compiled
    assert len(small.data["issues"]["edges"]) == 1
    assert refused(large)["response_bytes"] > 4 * len(BODY)
    assert access_line(caplog, large.headers["x-request-id"])["compiled"] is compiled
