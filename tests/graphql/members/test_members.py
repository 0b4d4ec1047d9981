"""Members (CONTRACT section 12): the workspace's people, admins and agents; listed with
members:read, added, changed and removed with members:manage; a workspace keeps an admin."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import events_after, last_sequence, types_of
from tests.graphql.issues.helpers import new_issue
from tests.graphql.members.helpers import (
    MEMBERS,
    assign,
    create_member,
    new_member,
    remove_member,
    update_member,
)

READ_ONLY = ["accounts:read", "articles:read", "contacts:read", "issues:read", "members:read"]


def test_the_first_admin_is_a_member_named_by_their_e_mail(workspace: WorkspaceFixture) -> None:
    listed = workspace.client().ok(MEMBERS)["members"]

    assert listed["totalCount"] == 1
    [admin] = [edge["node"] for edge in listed["edges"]]
    assert admin["id"] == workspace.made.admin.id
    assert admin["id"].startswith("mem_")
    assert (admin["email"], admin["name"], admin["role"]) == (
        workspace.admin_email,
        workspace.admin_email,
        "admin",
    )


def test_a_member_is_added_with_a_role_and_listed_in_the_order_they_joined(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()

    agent = new_member(api, "  Roy@Example.com ", name=" Roy Trenneman ", role="AGENT")
    admin = new_member(api, "jen@example.com", role="admin", password="a long password")

    assert agent["id"].startswith("mem_")
    assert (agent["email"], agent["name"], agent["role"]) == (
        "Roy@Example.com",
        "Roy Trenneman",
        "agent",
    )
    assert (admin["name"], admin["role"]) == ("jen@example.com", "admin")
    first_page = api.ok(MEMBERS, {"first": 2})["members"]
    assert first_page["totalCount"] == 3
    assert [edge["node"]["id"] for edge in first_page["edges"]] == [
        workspace.made.admin.id,
        agent["id"],
    ]
    rest = api.ok(MEMBERS, {"first": 2, "after": first_page["pageInfo"]["endCursor"]})["members"]
    assert [edge["node"]["id"] for edge in rest["edges"]] == [admin["id"]]
    assert rest["pageInfo"]["hasNextPage"] is False


@pytest.mark.parametrize(
    ("values", "field", "code"),
    [
        ({"email": "not an e-mail"}, "email", "INVALID"),
        ({"email": ""}, "email", "REQUIRED"),
        ({"role": "owner"}, "role", "INVALID"),
        ({"role": None}, "role", "REQUIRED"),
        ({"name": "n" * 201}, "name", "TOO_LONG"),
        ({"password": "short"}, "password", "INVALID"),
    ],
)
def test_member_input_is_checked_field_by_field(
    workspace: WorkspaceFixture, values: dict[str, Any], field: str, code: str
) -> None:
    api = workspace.client()
    values = {"email": "moss@example.com", "role": "agent", **values}

    payload = api.ok(
        "mutation($input: CreateMemberInput!) { createMember(input: $input) "
        "{ member { id } error { code fields { field code } } } }",
        {"input": values},
    )["createMember"]

    assert payload["member"] is None
    assert payload["error"] == {
        "code": "VALIDATION_FAILED",
        "fields": [{"field": field, "code": code}],
    }
    assert api.ok(MEMBERS)["members"]["totalCount"] == 1


def test_an_e_mail_belongs_to_one_member_of_a_workspace_in_any_case(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    new_member(api, "moss@example.com")

    again = create_member(api, "MOSS@example.com")
    elsewhere = create_member(other_workspace.client(), "moss@example.com")

    assert again["error"]["code"] == "ALREADY_EXISTS"
    assert elsewhere["error"] is None


def test_a_member_is_renamed_and_changes_role(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    agent = new_member(api, "roy@example.com")

    renamed = update_member(api, agent["id"], name="Roy")
    promoted = update_member(api, agent["id"], role="admin")
    unchanged = update_member(api, agent["id"], role="admin")
    blank = update_member(api, agent["id"], name="  ")

    assert renamed["member"]["name"] == "Roy"
    assert promoted["member"]["role"] == "admin"
    assert unchanged["member"] == promoted["member"]
    assert blank["error"]["fields"] == [{"field": "name", "code": "REQUIRED"}]


def test_the_last_admin_can_neither_become_an_agent_nor_go(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    admin_id = workspace.made.admin.id
    agent = new_member(api, "roy@example.com")

    demoted = update_member(api, admin_id, role="agent")
    removed = remove_member(api, admin_id)

    assert demoted["error"]["code"] == "VALIDATION_FAILED"
    assert demoted["error"]["fields"] == [{"field": "role", "code": "INVALID"}]
    assert removed["error"]["code"] == "VALIDATION_FAILED"
    assert removed["error"]["fields"] == [{"field": "id", "code": "INVALID"}]
    roles = {e["node"]["id"]: e["node"]["role"] for e in api.ok(MEMBERS)["members"]["edges"]}
    assert roles == {admin_id: "admin", agent["id"]: "agent"}
    # With a second admin, the first may go.
    assert update_member(api, agent["id"], role="admin")["error"] is None
    assert remove_member(api, admin_id)["error"] is None
    assert update_member(api, agent["id"], role="agent")["error"]["code"] == "VALIDATION_FAILED"


def test_two_admins_demoting_each_other_at_once_leave_one_admin(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    second = new_member(api, "jen@example.com", role="admin")
    answers: list[dict[str, Any]] = []
    start = threading.Barrier(2)

    def demote(member_id: str) -> None:
        start.wait()
        answers.append(update_member(api, member_id, role="agent"))

    threads = [
        threading.Thread(target=demote, args=(member_id,))
        for member_id in (workspace.made.admin.id, second["id"])
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(answer["error"] is None for answer in answers) == [False, True]
    [refused] = [answer["error"] for answer in answers if answer["error"] is not None]
    assert refused["code"] == "VALIDATION_FAILED"
    assert refused["fields"] == [{"field": "role", "code": "INVALID"}]
    roles = [edge["node"]["role"] for edge in api.ok(MEMBERS)["members"]["edges"]]
    assert sorted(roles) == ["admin", "agent"]


def test_removing_a_member_unassigns_their_issues(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    agent = new_member(api, "roy@example.com")
    issue = new_issue(api)
    before = assign(api, issue["id"], agent["id"])["issue"]

    removed = remove_member(api, agent["id"])
    again = remove_member(api, agent["id"])

    assert removed["member"] == {"id": agent["id"], "email": "roy@example.com"}
    assert again["error"]["code"] == "NOT_FOUND"
    after = api.ok(
        "query($id: ID!) { issue(id: $id) { updatedAt assignee { __typename } } }",
        {"id": issue["id"]},
    )["issue"]
    assert after["assignee"] is None
    assert after["updatedAt"] > before["updatedAt"]
    assert api.ok(MEMBERS)["members"]["totalCount"] == 1


def test_another_workspaces_member_is_not_found(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    theirs = new_member(other_workspace.client(), "theirs@example.com")

    renamed = update_member(api, theirs["id"], name="Mine")
    removed = remove_member(api, theirs["id"])
    node = api("query($id: ID!) { node(id: $id) { id } }", {"id": theirs["id"]})
    malformed = remove_member(api, "mem_nonsense")

    assert renamed["error"]["code"] == "NOT_FOUND"
    assert removed["error"]["code"] == "NOT_FOUND"
    assert malformed["error"]["code"] == "NOT_FOUND"
    assert node.codes == ["NOT_FOUND"]
    assert other_workspace.client().ok(MEMBERS)["members"]["totalCount"] == 2


def test_each_member_change_records_its_event(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    since = last_sequence(api)

    agent = new_member(api, "roy@example.com", name="Roy")
    update_member(api, agent["id"], role="admin")
    update_member(api, agent["id"], role="admin")  # no change, no event
    remove_member(api, agent["id"])
    found = events_after(api, since)

    assert types_of(found) == ["member.created", "member.updated", "member.removed"]
    created, updated, removed = (event["data"] for event in found)
    assert created["member"] == {
        "id": agent["id"],
        "email": "roy@example.com",
        "name": "Roy",
        "role": "agent",
        "createdAt": agent["createdAt"],
    }
    assert updated["changes"] == {"role": {"from": "agent", "to": "admin"}}
    assert removed["member"]["role"] == "admin"
    assert {event["actor"]["type"] for event in found} == {"machine_user"}
    assert "password" not in str(found)


def test_a_read_only_key_reads_members_and_changes_none(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    agent = new_member(api, "roy@example.com")
    reader = api.with_key(workspace.create_key(READ_ONLY))

    listed = reader.ok(MEMBERS)["members"]
    node = reader.ok(
        "query($id: ID!) { node(id: $id) { ... on Member { email } } }", {"id": agent["id"]}
    )
    refused = [
        reader(
            'mutation { createMember(input: {email: "x@example.com", role: "agent"}) '
            "{ member { id } } }"
        ),
        reader(
            'mutation($id: ID!) { updateMember(input: {id: $id, role: "admin"}) '
            "{ member { id } } }",
            {"id": agent["id"]},
        ),
        reader(
            "mutation($id: ID!) { removeMember(id: $id) { member { id } } }", {"id": agent["id"]}
        ),
    ]

    assert listed["totalCount"] == 2
    assert node["node"] == {"email": "roy@example.com"}
    for answer in refused:
        assert answer.codes == ["FORBIDDEN"]
        assert answer.errors[0]["extensions"]["requiredScopes"] == ["members:manage"]
    assert api.ok(MEMBERS)["members"]["totalCount"] == 2


def test_a_key_without_members_read_sees_no_member(workspace: WorkspaceFixture) -> None:
    reader = workspace.client(workspace.create_key(["issues:read"]))

    answer = reader(MEMBERS)

    assert answer.codes == ["FORBIDDEN"]
    assert answer.errors[0]["extensions"]["requiredScopes"] == ["members:read"]
