"""auditEvents: every change to keys and machine users, newest first, paged."""

from __future__ import annotations

import pytest

from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture

PAGE = """
query($first: Int, $after: String) {
  auditEvents(first: $first, after: $after) {
    totalCount
    edges { cursor node { id action actorType actorId actorLabel targetType targetId
                          ipAddress data createdAt } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


def test_a_new_workspace_records_its_initial_key(api: GraphQLClient) -> None:
    page = api.ok(PAGE)["auditEvents"]

    assert page["totalCount"] == 1
    event = page["edges"][0]["node"]
    assert event["action"] == "api_key.created"
    assert event["actorType"] == "cli"
    assert event["actorId"] is None
    assert event["targetType"] == "ApiKey"


def test_events_name_the_acting_key_and_its_address(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    user = factories.machine_user(api, "Audited integration")

    event = api.ok(PAGE, {"first": 1})["auditEvents"]["edges"][0]["node"]

    info = api.ok("{ apiInfo }")["apiInfo"]
    assert event["action"] == "machine_user.created"
    assert event["targetId"] == user["id"]
    assert event["actorType"] == "machine_user"
    assert event["actorId"] == info["machineUser"]["id"]
    assert event["actorLabel"] == f"Workspace API ({workspace.key[:12]})"
    assert event["ipAddress"] == "127.0.0.1"


def test_pages_walk_the_log_newest_first(api: GraphQLClient) -> None:
    for number in range(1, 5):
        factories.machine_user(api, f"Event {number}")

    actions: list[str] = []
    names: list[str] = []
    more: list[bool] = []
    after = None
    while True:
        page = api.ok(PAGE, {"first": 2, "after": after})["auditEvents"]
        assert page["totalCount"] == 5
        actions.extend(edge["node"]["action"] for edge in page["edges"])
        names.extend(edge["node"]["data"].get("name", "") for edge in page["edges"])
        more.append(page["pageInfo"]["hasNextPage"])
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]

    assert names == ["Event 4", "Event 3", "Event 2", "Event 1", "Initial full-access key"]
    assert actions[-1] == "api_key.created"
    assert more == [True, True, False]


def test_newer_events_do_not_shift_an_open_cursor(api: GraphQLClient) -> None:
    factories.machine_user(api, "Older")
    first_page = api.ok(PAGE, {"first": 1})["auditEvents"]
    factories.machine_user(api, "Newer")

    rest = api.ok(PAGE, {"first": 10, "after": first_page["pageInfo"]["endCursor"]})["auditEvents"]

    assert first_page["edges"][0]["node"]["data"] == {"name": "Older"}
    assert [e["node"]["action"] for e in rest["edges"]] == ["api_key.created"]


@pytest.mark.parametrize(("first", "after"), [(101, None), (-1, None), (1, "%%%")])
def test_a_bad_page_request_is_bad_user_input(
    api: GraphQLClient, first: int, after: str | None
) -> None:
    answer = api(PAGE, {"first": first, "after": after})

    assert answer.data == {"auditEvents": None}
    assert answer.error_at("auditEvents")["extensions"]["code"] == "BAD_USER_INPUT"


def test_reading_the_log_needs_audit_read(workspace: WorkspaceFixture) -> None:
    client = workspace.client(workspace.create_key(["machine_users:manage", "api_keys:manage"]))

    answer = client(PAGE)

    assert answer.data == {"auditEvents": None}
    assert answer.error_at("auditEvents")["extensions"] == {
        "code": "FORBIDDEN",
        "requiredScopes": ["audit:read"],
    }
