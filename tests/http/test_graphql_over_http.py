"""GraphQL over HTTP (CONTRACT section 7): negotiation, methods, bodies, status codes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import WorkspaceFixture
from tests.http.raw import chunk, exchange

GRAPHQL_RESPONSE = "application/graphql-response+json"
ONE_MIB = 1024 * 1024


@pytest.fixture
def workspace(module_workspace: WorkspaceFixture) -> WorkspaceFixture:
    """These tests change nothing they do not check, so they share one workspace."""
    return module_workspace


@pytest.fixture
def http(workspace: WorkspaceFixture) -> Iterator[httpx.Client]:
    """A client with the workspace's Full-access key."""
    with httpx.Client(
        base_url=workspace.server.base_url,
        headers={"Authorization": f"Bearer {workspace.key}"},
        timeout=30,
    ) as client:
        yield client


def post(http: httpx.Client, body: Any, accept: str | None = None) -> httpx.Response:
    headers = {"Accept": accept} if accept else {}
    return http.post("/graphql", json=body, headers=headers)


def media_type(response: httpx.Response) -> str:
    return response.headers["content-type"].split(";")[0]


def codes(response: httpx.Response) -> list[str]:
    return [error["extensions"]["code"] for error in response.json().get("errors", [])]


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, "application/json"),
        ("application/json", "application/json"),
        ("*/*", "application/json"),
        (GRAPHQL_RESPONSE, GRAPHQL_RESPONSE),
        (f"{GRAPHQL_RESPONSE}, application/json;q=0.9", GRAPHQL_RESPONSE),
        (f"{GRAPHQL_RESPONSE};q=0.5, application/json", "application/json"),
        (f"text/html, {GRAPHQL_RESPONSE}", GRAPHQL_RESPONSE),
    ],
)
def test_answers_in_the_media_type_the_client_prefers(
    http: httpx.Client, accept: str | None, expected: str
) -> None:
    response = post(http, {"query": "{ __typename }"}, accept)

    assert response.status_code == 200
    assert media_type(response) == expected
    assert response.headers["content-type"].endswith("charset=utf-8")
    assert response.json() == {
        "data": {"__typename": "Query"},
        "extensions": {"cost": {"requested": 0, "limit": 10000}},
    }


def test_an_accept_header_without_a_json_type_is_not_acceptable(http: httpx.Client) -> None:
    response = post(http, {"query": "{ __typename }"}, "text/html, image/png")

    assert response.status_code == 406
    assert codes(response) == ["NOT_ACCEPTABLE"]


@pytest.mark.parametrize(
    ("document", "code"),
    [
        ("{ __typename", "GRAPHQL_PARSE_FAILED"),
        ("{ noSuchField }", "GRAPHQL_VALIDATION_FAILED"),
    ],
)
def test_documents_that_cannot_run_answer_400_or_200_by_media_type(
    http: httpx.Client, document: str, code: str
) -> None:
    strict = post(http, {"query": document}, GRAPHQL_RESPONSE)
    lenient = post(http, {"query": document}, "application/json")

    assert strict.status_code == 400
    assert "data" not in strict.json()
    assert codes(strict) == [code]
    assert lenient.status_code == 200
    assert codes(lenient) == [code]


def test_variables_that_do_not_fit_answer_400_or_200_by_media_type(http: httpx.Client) -> None:
    body = {"query": "query ($n: Int) { machineUsers(first: $n) { totalCount } }"}
    body["variables"] = {"n": "many"}

    strict = post(http, body, GRAPHQL_RESPONSE)
    lenient = post(http, body, "application/json")

    assert (strict.status_code, lenient.status_code) == (400, 200)
    assert codes(strict) == codes(lenient) == ["BAD_USER_INPUT"]
    assert "data" not in strict.json()


def test_queries_may_be_sent_with_get(http: httpx.Client) -> None:
    response = http.get(
        "/graphql",
        params={
            "query": "query Page($n: Int) { machineUsers(first: $n) { edges { node { name } } } }",
            "variables": '{"n": 1}',
            "operationName": "Page",
        },
    )

    assert response.status_code == 200, response.text
    edges = response.json()["data"]["machineUsers"]["edges"]
    assert [edge["node"]["name"] for edge in edges] == ["Workspace API"]


def test_mutations_over_get_are_refused_with_405_and_change_nothing(
    http: httpx.Client,
) -> None:
    mutation = 'mutation { createMachineUser(input: {name: "Over GET"}) { machineUser { id } } }'

    response = http.get("/graphql", params={"query": mutation})

    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    assert codes(response) == ["METHOD_NOT_ALLOWED"]
    listed = post(http, {"query": "{ machineUsers { edges { node { name } } } }"}).json()
    assert [e["node"]["name"] for e in listed["data"]["machineUsers"]["edges"]] == ["Workspace API"]


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"])
def test_other_methods_are_refused_with_405(http: httpx.Client, method: str) -> None:
    response = http.request(method, "/graphql", json={"query": "{ __typename }"})

    assert response.status_code == 405
    assert response.headers["allow"] == "GET, POST"
    assert codes(response) == ["METHOD_NOT_ALLOWED"]


def test_batched_bodies_are_refused_with_400(http: httpx.Client) -> None:
    response = post(http, [{"query": "{ __typename }"}, {"query": "{ __typename }"}])

    assert response.status_code == 400
    assert codes(response) == ["BAD_REQUEST"]
    assert "Batched" in response.json()["errors"][0]["message"]


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"",
        b'"a string"',
        b'{"notquery": "{ __typename }"}',
        b'{"query": 7}',
        b'{"query": "{ __typename }", "variables": [1]}',
        b'{"query": "{ __typename }", "operationName": 3}',
        b'{"query": "{ __typename }", "extensions": "yes"}',
    ],
)
def test_malformed_requests_are_refused_with_400(http: httpx.Client, body: bytes) -> None:
    for accept in (GRAPHQL_RESPONSE, "application/json"):
        response = http.post(
            "/graphql",
            content=body,
            headers={"Content-Type": "application/json", "Accept": accept},
        )

        assert response.status_code == 400, response.text
        assert codes(response) == ["BAD_REQUEST"]


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "application/graphql",
        "application/x-www-form-urlencoded",
        "application/json; charset=latin1",
        None,
    ],
)
def test_other_content_types_are_refused_with_415(
    http: httpx.Client, content_type: str | None
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    response = http.post("/graphql", content=b'{"query": "{ __typename }"}', headers=headers)

    assert response.status_code == 415
    assert codes(response) == ["UNSUPPORTED_MEDIA_TYPE"]


def test_json_with_a_charset_of_utf8_is_accepted(http: httpx.Client) -> None:
    response = http.post(
        "/graphql",
        content='{"query": "{ __typename }", "extensions": {"x": "é"}}'.encode(),
        headers={"Content-Type": "application/json; charset=UTF-8"},
    )

    assert response.status_code == 200
    assert response.json()["data"] == {"__typename": "Query"}


def test_a_body_over_1_mib_is_refused_with_413(http: httpx.Client) -> None:
    padding = "x" * ONE_MIB
    response = post(http, {"query": "{ __typename }", "extensions": {"padding": padding}})

    assert response.status_code == 413
    assert codes(response) == ["PAYLOAD_TOO_LARGE"]


def test_a_body_of_just_under_1_mib_is_read(http: httpx.Client) -> None:
    padding = "x" * (ONE_MIB - 200)
    response = post(http, {"query": "{ __typename }", "extensions": {"padding": padding}})

    assert response.status_code == 200


def test_a_declared_oversized_body_is_refused_before_it_is_sent(
    workspace: WorkspaceFixture,
) -> None:
    # The client promises 50 MiB and sends 1 KiB: an answer can only come if the server
    # refuses without waiting for (or reading) the rest.
    head = (
        "POST /graphql HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\n"
        f"Authorization: Bearer {workspace.key}\nContent-Length: {50 * ONE_MIB}\n"
    )

    status, text = exchange(workspace.server.port, head, [b"{" + b" " * 1023])

    assert status == 413
    assert "PAYLOAD_TOO_LARGE" in text


def test_a_chunked_body_is_refused_as_soon_as_it_passes_1_mib(
    workspace: WorkspaceFixture,
) -> None:
    # Chunks up to just past the limit and no final chunk: the server must answer anyway.
    head = (
        "POST /graphql HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\n"
        f"Authorization: Bearer {workspace.key}\nTransfer-Encoding: chunked\n"
    )
    parts = [chunk(b" " * 65536) for _ in range(17)]

    status, text = exchange(workspace.server.port, head, parts)

    assert status == 413
    assert "PAYLOAD_TOO_LARGE" in text


def test_every_answer_carries_a_request_id(http: httpx.Client) -> None:
    answers = [
        post(http, {"query": "{ __typename }"}),
        post(http, {"query": "{ nope }"}, GRAPHQL_RESPONSE),
        post(http, [{"query": "{ __typename }"}]),
        http.put("/graphql"),
        http.post("/graphql", content=b"{}", headers={"Content-Type": "text/plain"}),
        post(http, {"query": "{ __typename }"}, "text/html"),
        http.post("/graphql", json={"query": "{ __typename }"}, headers={"Authorization": ""}),
        http.get("/healthz"),
        http.get("/no-such-page"),
    ]

    ids = [answer.headers.get("x-request-id") for answer in answers]
    assert all(ids), [(a.status_code, a.headers) for a in answers]
    assert len(set(ids)) == len(ids)


def test_a_sane_request_id_from_the_client_is_kept(http: httpx.Client) -> None:
    kept = http.post(
        "/graphql", json={"query": "{ __typename }"}, headers={"X-Request-Id": "trace-42.a_b"}
    )
    replaced = http.post(
        "/graphql", json={"query": "{ __typename }"}, headers={"X-Request-Id": "bad id;drop"}
    )

    assert kept.headers["x-request-id"] == "trace-42.a_b"
    assert replaced.headers["x-request-id"] not in ("", "bad id;drop")


def test_a_request_without_a_key_is_refused_with_401_before_its_body_is_read(
    workspace: WorkspaceFixture,
) -> None:
    response = httpx.post(
        f"{workspace.server.base_url}/graphql",
        content=b"not even json",
        headers={"Content-Type": "text/plain"},
    )

    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert codes(response) == ["UNAUTHENTICATED"]
    assert response.json()["errors"][0]["extensions"]["reason"] == "missing"


def test_several_operations_need_an_operation_name(http: httpx.Client) -> None:
    document = "query A { __typename } query B { apiInfo }"

    unnamed = post(http, {"query": document}, GRAPHQL_RESPONSE)
    named = post(http, {"query": document, "operationName": "B"}, GRAPHQL_RESPONSE)
    unknown = post(http, {"query": document, "operationName": "C"}, GRAPHQL_RESPONSE)

    assert unnamed.status_code == 400
    assert codes(unnamed) == ["BAD_USER_INPUT"]
    assert named.status_code == 200
    assert set(named.json()["data"]) == {"apiInfo"}
    assert unknown.status_code == 400
    assert codes(unknown) == ["BAD_USER_INPUT"]
