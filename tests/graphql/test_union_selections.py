"""A client selects the same field on each member of a union without aliases: the thread's
authors and the assignee answer `name` and `createdAt` whoever they are. GraphQL refuses a
response key whose types differ between members (`String` beside `String!`), so the members
of each union agree on the type of every field they share."""

from __future__ import annotations

import pytest
from graphql import GraphQLUnionType

from supportdesk.graphql.schema import build_schema
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import reply
from tests.graphql.people import WIDE, Desk, make_desk


@pytest.fixture
def desk(workspace: WorkspaceFixture) -> Desk:
    return make_desk(workspace)


THREAD = """query($id: ID!) {
  issue(id: $id) {
    assignee {
      __typename
      ... on Member { name createdAt }
      ... on MachineUser { name createdAt }
    }
    messages { edges { node { author {
      __typename
      ... on Contact { name email createdAt }
      ... on Member { name email createdAt }
      ... on MachineUser { name createdAt }
    } } } }
  }
}"""


def test_a_thread_s_authors_answer_one_selection_of_each_kind(desk: Desk) -> None:
    api = desk.client([*WIDE, "thread:reply"])
    assert reply(api, desk.issue_id, "From the integration")["error"] is None

    answer = api(THREAD, {"id": desk.issue_id})

    assert answer.errors == []
    issue = answer.data["issue"]
    assert (issue["assignee"]["__typename"], issue["assignee"]["name"]) == (
        "Member",
        "Roy Trenneman",
    )
    authors = [edge["node"]["author"] for edge in issue["messages"]["edges"]]
    assert [(a["__typename"], a["name"]) for a in authors] == [
        ("Contact", "Maurice Moss"),
        ("Member", "Roy Trenneman"),
        ("MachineUser", authors[2]["name"]),
    ]
    assert authors[2]["name"]
    assert all(author["createdAt"] for author in authors)


def test_the_members_of_every_union_agree_on_the_fields_they_share() -> None:
    schema = build_schema()._schema
    disagreements = []
    for union in schema.type_map.values():
        if not isinstance(union, GraphQLUnionType):
            continue
        types: dict[str, set[str]] = {}
        for member in union.types:
            for name, field in member.fields.items():
                types.setdefault(name, set()).add(str(field.type))
        disagreements += [(union.name, name, sorted(t)) for name, t in types.items() if len(t) > 1]

    assert disagreements == []
