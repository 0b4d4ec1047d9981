"""machineUsers: the workspace's principals, oldest first, paged, with their keys."""

from __future__ import annotations

import base64

import pytest

from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture

PAGE = """
query($first: Int, $after: String) {
  machineUsers(first: $first, after: $after) {
    totalCount
    edges { cursor node { id name managed } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


def walk(api: GraphQLClient, first: int) -> tuple[list[str], list[dict[str, object]]]:
    """Every name, page by page; and each page's pageInfo and totalCount."""
    names: list[str] = []
    pages: list[dict[str, object]] = []
    after = None
    while True:
        page = api.ok(PAGE, {"first": first, "after": after})["machineUsers"]
        names.extend(edge["node"]["name"] for edge in page["edges"])
        pages.append({"count": len(page["edges"]), "total": page["totalCount"], **page["pageInfo"]})
        if not page["pageInfo"]["hasNextPage"]:
            return names, pages
        assert page["pageInfo"]["endCursor"] == page["edges"][-1]["cursor"]
        after = page["pageInfo"]["endCursor"]


def test_a_new_workspace_lists_its_managed_machine_user(api: GraphQLClient) -> None:
    page = api.ok(PAGE)["machineUsers"]

    assert page["totalCount"] == 1
    assert [edge["node"]["managed"] for edge in page["edges"]] == [True]
    assert page["edges"][0]["node"]["name"] == "Workspace API"
    assert page["pageInfo"]["hasNextPage"] is False


def test_pages_walk_the_whole_list_in_creation_order(api: GraphQLClient) -> None:
    for number in range(1, 6):
        factories.machine_user(api, f"Integration {number}")

    names, pages = walk(api, 2)

    assert names == ["Workspace API"] + [f"Integration {n}" for n in range(1, 6)]
    assert [page["count"] for page in pages] == [2, 2, 2]
    assert [page["hasNextPage"] for page in pages] == [True, True, False]
    assert {page["total"] for page in pages} == {6}


def test_a_cursor_stays_valid_when_items_are_added(api: GraphQLClient) -> None:
    factories.machine_user(api, "First")
    first_page = api.ok(PAGE, {"first": 2})["machineUsers"]
    factories.machine_user(api, "Added later")

    rest = api.ok(PAGE, {"first": 10, "after": first_page["pageInfo"]["endCursor"]})["machineUsers"]

    assert [e["node"]["name"] for e in first_page["edges"]] == ["Workspace API", "First"]
    assert [e["node"]["name"] for e in rest["edges"]] == ["Added later"]
    assert rest["totalCount"] == 3


def test_first_zero_gives_no_edges_but_the_count(api: GraphQLClient) -> None:
    page = api.ok(PAGE, {"first": 0})["machineUsers"]

    assert page["edges"] == []
    assert page["totalCount"] == 1
    assert page["pageInfo"] == {"hasNextPage": True, "endCursor": None}


@pytest.mark.parametrize(
    ("first", "after"),
    [
        (101, None),
        (-1, None),
        (5, "not-a-cursor"),
        (5, base64.urlsafe_b64encode(b"c1:mu_\x00").decode()),
    ],
)
def test_a_bad_page_request_is_bad_user_input(
    api: GraphQLClient, first: int, after: str | None
) -> None:
    answer = api(PAGE, {"first": first, "after": after})

    assert answer.status == 200
    assert answer.data == {"machineUsers": None}
    assert answer.error_at("machineUsers")["extensions"]["code"] == "BAD_USER_INPUT"


def test_a_machine_users_keys_are_listed_with_it(api: GraphQLClient) -> None:
    user = factories.machine_user(api, "With keys")
    made = [factories.api_key(api, user["id"], ["issues:read"], name=f"k{n}") for n in (1, 2)]

    page = api.ok(
        "{ machineUsers { edges { node { id apiKeys { totalCount edges { node { id name keyPrefix } } } } } } }"
    )

    users = [e["node"] for e in page["machineUsers"]["edges"]]
    keys = {user["id"]: [e["node"] for e in user["apiKeys"]["edges"]] for user in users}
    assert {user["id"]: user["apiKeys"]["totalCount"] for user in users}[user["id"]] == 2
    assert keys[user["id"]] == [
        {
            "id": m["apiKey"]["id"],
            "name": m["apiKey"]["name"],
            "keyPrefix": m["apiKey"]["keyPrefix"],
        }
        for m in made
    ]


def test_keys_of_a_machine_user_need_api_keys_manage(workspace: WorkspaceFixture) -> None:
    client = workspace.client(workspace.create_key(["machine_users:manage"]))

    answer = client(
        "{ machineUsers { totalCount edges { node { name apiKeys { totalCount } } } } }"
    )

    assert answer.status == 200
    page = answer.data["machineUsers"]
    assert page["totalCount"] == 1
    assert page["edges"][0]["node"] == {"name": "Workspace API", "apiKeys": None}
    error = answer.error_at("machineUsers", "edges", 0, "node", "apiKeys")
    assert error["extensions"] == {"code": "FORBIDDEN", "requiredScopes": ["api_keys:manage"]}


def test_listing_needs_machine_users_manage(workspace: WorkspaceFixture) -> None:
    client = workspace.client(workspace.create_key(["issues:read"]))

    answer = client(PAGE)

    assert answer.data == {"machineUsers": None}
    assert answer.error_at("machineUsers")["extensions"] == {
        "code": "FORBIDDEN",
        "requiredScopes": ["machine_users:manage"],
    }
