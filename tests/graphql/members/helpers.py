"""Member and assignee operations as an integration sends them."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient

MEMBER_FIELDS = "id email name role createdAt"
ERROR = "error { code message fields { field code } }"
CREATE_MEMBER = f"""
mutation($input: CreateMemberInput!) {{
  createMember(input: $input) {{ member {{ {MEMBER_FIELDS} }} invitationUrl {ERROR} }}
}}
"""
UPDATE_MEMBER = f"""
mutation($input: UpdateMemberInput!) {{
  updateMember(input: $input) {{ member {{ {MEMBER_FIELDS} }} {ERROR} }}
}}
"""
REMOVE_MEMBER = f"""
mutation($id: ID!) {{ removeMember(id: $id) {{ member {{ id email }} {ERROR} }} }}
"""
MEMBERS = """
query($first: Int, $after: String) {
  members(first: $first, after: $after) {
    totalCount edges { node { id email name role } } pageInfo { hasNextPage endCursor }
  }
}
"""
ASSIGNEE = """
assignee {
  __typename
  ... on Member { id name role }
  ... on MachineUser { id name }
}
"""
ASSIGN_ISSUE = f"""
mutation($input: AssignIssueInput!) {{
  assignIssue(input: $input) {{ issue {{ id updatedAt {ASSIGNEE} }} {ERROR} }}
}}
"""
ISSUES_BY_ASSIGNEE = f"""
query($filter: IssueFilter) {{
  issues(first: 100, filter: $filter) {{ totalCount edges {{ node {{ id {ASSIGNEE} }} }} }}
}}
"""


def create_member(api: GraphQLClient, email: str, **more: Any) -> dict[str, Any]:
    values = {"email": email, "role": "agent", **more}
    payload: dict[str, Any] = api.ok(CREATE_MEMBER, {"input": values})["createMember"]
    return payload


def new_member(api: GraphQLClient, email: str, **more: Any) -> dict[str, Any]:
    payload = create_member(api, email, **more)
    assert payload["error"] is None, payload
    member: dict[str, Any] = payload["member"]
    return member


def update_member(api: GraphQLClient, member_id: str, **changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(UPDATE_MEMBER, {"input": {"id": member_id, **changes}})[
        "updateMember"
    ]
    return payload


def remove_member(api: GraphQLClient, member_id: str) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(REMOVE_MEMBER, {"id": member_id})["removeMember"]
    return payload


def assign(api: GraphQLClient, issue_id: str, assignee_id: str | None) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(
        ASSIGN_ISSUE, {"input": {"issueId": issue_id, "assigneeId": assignee_id}}
    )["assignIssue"]
    return payload


def assigned_ids(api: GraphQLClient, **filter: Any) -> list[str]:
    found = api.ok(ISSUES_BY_ASSIGNEE, {"filter": filter})["issues"]
    assert found["totalCount"] == len(found["edges"])
    return [edge["node"]["id"] for edge in found["edges"]]
