"""apiKeys: the workspace's keys, oldest first, paged, filtered by machine user."""

from __future__ import annotations

import time

import pytest

from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture

PAGE = """
query($first: Int, $after: String, $owner: ID) {
  apiKeys(first: $first, after: $after, machineUserId: $owner) {
    totalCount
    edges { cursor node { id name status lastUsedAt } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


def walk(api: GraphQLClient, first: int, owner: str | None = None) -> tuple[list[str], list[bool]]:
    names: list[str] = []
    more: list[bool] = []
    after = None
    while True:
        page = api.ok(PAGE, {"first": first, "after": after, "owner": owner})["apiKeys"]
        names.extend(edge["node"]["name"] for edge in page["edges"])
        more.append(page["pageInfo"]["hasNextPage"])
        if not page["pageInfo"]["hasNextPage"]:
            return names, more
        after = page["pageInfo"]["endCursor"]


def test_a_new_workspace_lists_its_initial_key(
    api: GraphQLClient, workspace: WorkspaceFixture
) -> None:
    page = api.ok(PAGE)["apiKeys"]

    assert page["totalCount"] == 1
    assert page["edges"][0]["node"]["name"] == "Initial full-access key"
    assert page["edges"][0]["node"]["status"] == "active"


def test_pages_walk_every_key_in_creation_order(api: GraphQLClient) -> None:
    owner = factories.machine_user(api, "Many keys")["id"]
    for number in range(1, 5):
        factories.api_key(api, owner, ["issues:read"], name=f"key {number}")

    names, more = walk(api, 2)

    assert names == ["Initial full-access key", "key 1", "key 2", "key 3", "key 4"]
    assert more == [True, True, False]
    assert api.ok("{ apiKeys(first: 1) { totalCount } }")["apiKeys"]["totalCount"] == 5


def test_keys_can_be_listed_for_one_machine_user(api: GraphQLClient) -> None:
    mine = factories.machine_user(api, "Mine")["id"]
    other = factories.machine_user(api, "Other")["id"]
    for number in range(3):
        factories.api_key(api, mine, ["issues:read"], name=f"mine {number}")
        factories.api_key(api, other, ["issues:read"], name=f"other {number}")

    names, more = walk(api, 2, mine)

    assert names == ["mine 0", "mine 1", "mine 2"]
    assert more == [True, False]
    total = api.ok(PAGE, {"owner": mine})["apiKeys"]["totalCount"]
    assert total == 3


def test_an_unknown_machine_user_has_no_keys(api: GraphQLClient) -> None:
    for owner in ("garbage", factories.missing_id("MachineUser")):
        page = api.ok(PAGE, {"owner": owner})["apiKeys"]
        assert page == {
            "totalCount": 0,
            "edges": [],
            "pageInfo": {"hasNextPage": False, "endCursor": None},
        }


@pytest.mark.parametrize(("first", "after"), [(101, None), (-5, None), (5, "bm90IGEgY3Vyc29y")])
def test_a_bad_page_request_is_bad_user_input(
    api: GraphQLClient, first: int, after: str | None
) -> None:
    answer = api(PAGE, {"first": first, "after": after})

    assert answer.data == {"apiKeys": None}
    assert answer.error_at("apiKeys")["extensions"]["code"] == "BAD_USER_INPUT"


def test_last_used_at_is_recorded_after_a_key_is_used(api: GraphQLClient) -> None:
    owner = factories.machine_user(api, "Used")["id"]
    created = factories.api_key(api, owner, ["issues:read"], name="used key")
    assert created["apiKey"]["lastUsedAt"] is None

    api.ok("{ apiInfo }", key=created["secret"])

    # Written by a background task after the answer: poll briefly.
    deadline = time.monotonic() + 10
    while True:
        page = api.ok(PAGE, {"owner": owner})["apiKeys"]
        last_used = page["edges"][0]["node"]["lastUsedAt"]
        if last_used is not None or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert last_used is not None
    assert last_used >= created["apiKey"]["createdAt"]


def test_listing_needs_api_keys_manage(workspace: WorkspaceFixture) -> None:
    client = workspace.client(workspace.create_key(["machine_users:manage", "audit:read"]))

    answer = client(PAGE)

    assert answer.data == {"apiKeys": None}
    assert answer.error_at("apiKeys")["extensions"] == {
        "code": "FORBIDDEN",
        "requiredScopes": ["api_keys:manage"],
    }
