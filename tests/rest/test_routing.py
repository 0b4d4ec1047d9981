"""Everything under /v1 answers JSON in the REST shape with a request id: other methods
(405 with Allow), unknown paths (404), and the unexpected (500, masked and logged)."""

from __future__ import annotations

import logging

import pytest

from supportdesk.logs import JsonFormatter
from tests.conftest import make_workspace
from tests.http.test_error_masking import error_records, rename_table
from tests.rest.client import RestClient
from tests.servers import RunningServer


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", "/v1/issues", "POST"),
        ("PUT", "/v1/issues", "POST"),
        ("DELETE", "/v1/issues/iss_x", "GET, HEAD"),
        ("POST", "/v1/issues/iss_x", "GET, HEAD"),
        ("POST", "/v1/openapi.json", "GET, HEAD"),
    ],
)
def test_another_method_is_not_allowed(
    rest: RestClient, method: str, path: str, allowed: str
) -> None:
    reply = rest.request(method, path, headers=rest.headers())

    assert reply.status == 405
    assert reply.headers["allow"] == allowed
    assert reply.code == "METHOD_NOT_ALLOWED"
    assert reply.headers["x-request-id"]


def test_head_answers_as_get_does_without_the_body(rest: RestClient) -> None:
    issue_id = rest.created()["id"]

    for path in (f"/v1/issues/{issue_id}", "/v1/openapi.json"):
        got = rest.http.get(path, headers=rest.headers())
        head = rest.http.head(path, headers=rest.headers())

        assert head.status_code == got.status_code == 200, path
        assert head.content == b""
        assert head.headers["content-length"] == str(len(got.content))
        assert head.headers["content-type"] == got.headers["content-type"]
    # A stream has no head to answer at once: only GET opens one.
    stream = rest.http.head("/v1/events/stream", headers=rest.headers())
    assert stream.status_code == 405 and stream.headers["allow"] == "GET"


def test_every_answer_under_v1_is_not_stored_by_caches(rest: RestClient) -> None:
    issue_id = rest.created()["id"]

    answers = {
        "an issue": rest.get(issue_id),
        "the document": rest.request("GET", "/v1/openapi.json"),
        "no key": rest.with_key(None).get(issue_id),
        "not found": rest.request("GET", "/v1/tickets"),
        "another method": rest.request("DELETE", f"/v1/issues/{issue_id}"),
        "created": rest.create(),
    }

    # An issue's thread is a customer's words: no proxy or browser cache keeps them.
    assert {name: a.headers.get("cache-control") for name, a in answers.items()} == dict.fromkeys(
        answers, "no-store"
    )


@pytest.mark.parametrize("path", ["/v1/tickets", "/v1/issues/", "/v1/issues/a/b", "/v1/"])
def test_an_unknown_path_is_not_found(rest: RestClient, path: str) -> None:
    reply = rest.request("GET", path)

    assert reply.status == 404
    assert reply.code == "NOT_FOUND"
    assert reply.headers["x-request-id"]


def test_the_unexpected_is_masked_in_the_rest_shape_and_logged(
    breakable_server: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    workspace = make_workspace(breakable_server)
    rest = RestClient(breakable_server.base_url, workspace.key)
    rename_table(breakable_server, "messages")

    reply = rest.create()

    request_id = reply.headers["x-request-id"]
    assert reply.status == 500
    assert reply.body == {
        "error": {
            "code": "INTERNAL_SERVER_ERROR",
            "message": "Internal server error.",
            "fields": [],
            "request_id": request_id,
        }
    }
    [record] = error_records(caplog, request_id)
    line = JsonFormatter().format(record)
    assert record.levelno == logging.ERROR
    assert "Traceback (most recent call last)" in line
    assert '"path":"/v1/issues"' in line
