"""401 answers (CONTRACT section 7): GraphQL-shaped, a reason, WWW-Authenticate: Bearer."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from supportdesk.auth.keys import checksum, generate_secret
from tests import factories
from tests.client import Answer, GraphQLClient
from tests.conftest import WorkspaceFixture, make_workspace
from tests.http.raw import exchange
from tests.http.test_rate_limits import fresh_address
from tests.servers import RunningServer


def post(server: RunningServer, headers: dict[str, str]) -> Answer:
    response = httpx.post(
        f"{server.base_url}/graphql", json={"query": "{ apiInfo }"}, headers=headers, timeout=30
    )
    return Answer(response.status_code, response.json(), response.headers)


def post_raw(server: RunningServer, headers: list[tuple[str, str]]) -> Answer:
    """POST `{ apiInfo }` with exactly these header lines, repeated names included (an HTTP
    client library folds or refuses them)."""
    body = b'{"query": "{ apiInfo }"}'
    head = "".join(f"{name}: {value}\n" for name, value in headers)
    status, text = exchange(
        server.port,
        "POST /graphql HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\n"
        f"Content-Length: {len(body)}\nConnection: close\n{head}",
        [body],
    )
    raw_head, _, raw_body = text.partition("\r\n\r\n")
    lines = [line.partition(":") for line in raw_head.split("\r\n")[1:]]
    answer_headers = httpx.Headers([(name, value.strip()) for name, _, value in lines])
    return Answer(status, json.loads(raw_body), answer_headers)


def assert_unauthenticated(answer: Answer, reason: str) -> None:
    assert answer.status == 401, answer.body
    assert answer.headers["www-authenticate"] == "Bearer"
    assert answer.headers["content-type"].startswith("application/json")
    assert "data" not in answer.body
    [error] = answer.errors
    assert error["extensions"] == {"code": "UNAUTHENTICATED", "reason": reason}
    assert error["message"]


def test_a_request_without_a_key_is_refused_with_reason_missing(server: RunningServer) -> None:
    assert_unauthenticated(post(server, {}), "missing")


@pytest.mark.parametrize(
    "authorization",
    [
        "Basic dXNlcjpwYXNz",
        "Bearer",
        "Bearer not-a-key",
        "svc_mk_" + "a" * 38,
        "Token " + "svc_mk_" + "a" * 32 + checksum("svc_mk_" + "a" * 32),
    ],
)
def test_a_header_that_holds_no_key_of_ours_is_malformed(
    server: RunningServer, authorization: str
) -> None:
    assert_unauthenticated(post(server, {"Authorization": authorization}), "malformed")


def test_a_mistyped_key_fails_its_checksum_and_is_malformed(workspace: WorkspaceFixture) -> None:
    key = workspace.key
    mistyped = key[:20] + ("a" if key[20] != "a" else "b") + key[21:]

    assert_unauthenticated(
        post(workspace.server, {"Authorization": f"Bearer {mistyped}"}), "malformed"
    )


def test_a_wellformed_key_that_was_never_issued_is_invalid(server: RunningServer) -> None:
    made_up = generate_secret()

    assert_unauthenticated(post(server, {"Authorization": f"Bearer {made_up}"}), "invalid")


def test_the_bearer_scheme_is_case_insensitive(workspace: WorkspaceFixture) -> None:
    answer = post(workspace.server, {"Authorization": f"bearer {workspace.key}"})

    assert answer.status == 200, answer.body


def test_a_revoked_key_is_refused_with_reason_revoked(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    owner = factories.machine_user(api, "Revoked integration")["id"]
    created = factories.api_key(api, owner, ["issues:read"])
    api.ok(factories.REVOKE_API_KEY, {"id": created["apiKey"]["id"]})

    answer = api("{ apiInfo }", key=created["secret"])

    assert_unauthenticated(answer, "revoked")


def test_an_expired_key_is_refused_with_reason_expired(api: GraphQLClient) -> None:
    owner = factories.machine_user(api, "Short-lived integration")["id"]
    expires = datetime.now(UTC) + timedelta(seconds=1)
    created = factories.api_key(
        api, owner, ["issues:read"], expires_at=expires.isoformat(timespec="milliseconds")
    )
    time.sleep(max(0.0, (expires - datetime.now(UTC)).total_seconds()) + 0.05)

    answer = api("{ apiInfo }", key=created["secret"])

    assert_unauthenticated(answer, "expired")
    listed = api.ok("{ apiKeys { edges { node { id status } } } }")["apiKeys"]["edges"]
    assert {"id": created["apiKey"]["id"], "status": "expired"} in [e["node"] for e in listed]


# A read that compiles: answered by one statement, which checks the key itself once this
# process has looked the key up before (auth/authenticate.py, `KnownKeys`).
COMPILED_READ = "{ issues(first: 1) { totalCount } }"
ASK_COMPILED = {"extensions": {"compiled": True}}


def _answered_compiled(api: GraphQLClient, secret: str) -> None:
    for _ in range(2):  # the first looks the key up, the second is answered for it as known
        answer = api(COMPILED_READ, key=secret, **ASK_COMPILED)
        assert answer.status == 200 and not answer.errors, answer.body
        assert answer.body["extensions"]["compiled"] is True


def test_a_key_answered_compiled_is_refused_at_once_when_revoked(api: GraphQLClient) -> None:
    owner = factories.machine_user(api, "Revoked compiled reader")["id"]
    created = factories.api_key(api, owner, ["issues:read"])
    _answered_compiled(api, created["secret"])

    api.ok(factories.REVOKE_API_KEY, {"id": created["apiKey"]["id"]})

    assert_unauthenticated(api(COMPILED_READ, key=created["secret"], **ASK_COMPILED), "revoked")
    # Authentication still comes before the document, and before the rate limit.
    assert_unauthenticated(api("{ not valid graphql", key=created["secret"]), "revoked")
    assert_unauthenticated(api(COMPILED_READ, key=created["secret"]), "revoked")


def test_a_key_answered_compiled_is_refused_at_once_when_it_expires(api: GraphQLClient) -> None:
    owner = factories.machine_user(api, "Expiring compiled reader")["id"]
    expires = datetime.now(UTC) + timedelta(seconds=2)
    created = factories.api_key(
        api, owner, ["issues:read"], expires_at=expires.isoformat(timespec="milliseconds")
    )
    _answered_compiled(api, created["secret"])
    time.sleep(max(0.0, (expires - datetime.now(UTC)).total_seconds()) + 0.05)

    assert_unauthenticated(api(COMPILED_READ, key=created["secret"], **ASK_COMPILED), "expired")


def test_a_known_key_takes_one_token_a_request_whichever_path_answers(
    api: GraphQLClient,
) -> None:
    owner = factories.machine_user(api, "Counted reader")["id"]
    secret = factories.api_key(api, owner, ["issues:read"])["secret"]
    answers = [
        api(COMPILED_READ, key=secret),  # looked up
        api(COMPILED_READ, key=secret),  # compiled, for the known key
        api("{ apiInfo }", key=secret),  # the executor's: looked up again
        api("{ not valid graphql", key=secret),
    ]
    remaining = [int(answer.headers["x-ratelimit-remaining"]) for answer in answers]
    assert [answer.status for answer in answers] == [200, 200, 200, 200]
    assert remaining == [remaining[0] - n for n in range(4)]


def test_a_key_with_a_future_expiry_works_and_says_when_it_expires(api: GraphQLClient) -> None:
    owner = factories.machine_user(api, "Long-lived integration")["id"]
    created = factories.api_key(api, owner, ["issues:read"], expires_at="2099-01-02T03:04:05.678Z")

    info = api.ok("{ apiInfo }", key=created["secret"])["apiInfo"]

    assert info["key"]["expiresAt"] == "2099-01-02T03:04:05.678Z"
    assert created["apiKey"]["expiresAt"] == "2099-01-02T03:04:05.678Z"
    assert created["apiKey"]["status"] == "active"


def test_authentication_comes_before_the_document_is_read(server: RunningServer) -> None:
    response = httpx.post(
        f"{server.base_url}/graphql", json={"query": "{ not valid graphql"}, timeout=30
    )

    assert response.status_code == 401
    assert response.json()["errors"][0]["extensions"]["reason"] == "missing"


@pytest.mark.parametrize("other", ["the same key", "another key", "an empty value"])
def test_two_authorization_headers_are_malformed_in_either_order(
    workspace: WorkspaceFixture, other: str
) -> None:
    # The first used to win: a proxy that reads the other one disagrees about who is calling.
    key = f"Bearer {workspace.key}"
    second = {
        "the same key": key,
        "another key": f"Bearer {generate_secret()}",
        "an empty value": "",
    }[other]

    key_first = post_raw(workspace.server, [("Authorization", key), ("Authorization", second)])
    key_last = post_raw(workspace.server, [("Authorization", second), ("Authorization", key)])
    key_alone = post_raw(workspace.server, [("Authorization", key)])

    assert_unauthenticated(key_first, "malformed")
    assert_unauthenticated(key_last, "malformed")
    assert key_alone.status == 200, key_alone.body


def test_two_authorization_headers_count_as_a_failed_authentication(
    throttled_server: RunningServer,
) -> None:
    limit = throttled_server.settings.failed_auth_per_minute
    key = make_workspace(throttled_server).key
    address = ("X-Forwarded-For", fresh_address())
    twice = [("Authorization", f"Bearer {key}"), ("Authorization", f"Bearer {generate_secret()}")]

    answers = [post_raw(throttled_server, [address, *twice]) for _ in range(limit + 1)]

    for refused in answers[:limit]:
        assert_unauthenticated(refused, "malformed")
    assert answers[limit].status == 429
    assert answers[limit].errors[0]["extensions"]["code"] == "RATE_LIMITED"
