"""The people in events' data, as a key reads them (issue #38, docs/security.md): without
`contacts:read` a contact is its `id`, without `members:read` a member its `id` and `name`,
in the `events` feed and in a delivery's `event`; with the scopes, everything."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import all_events
from tests.graphql.issues.helpers import new_issue
from tests.graphql.members.helpers import update_member
from tests.graphql.people import AGENT, NARROW, REQUESTER, WIDE, Desk, make_desk
from tests.graphql.webhooks.helpers import new_endpoint


@pytest.fixture
def desk(workspace: WorkspaceFixture) -> Desk:
    return make_desk(workspace)


def _by_type(found: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [event["data"] for event in found if event["type"] == kind]


def test_issue_events_show_the_requester_s_email_only_with_contacts_read(desk: Desk) -> None:
    narrow = all_events(desk.client(NARROW))
    wide = all_events(desk.client(WIDE))

    assert {"issue.created", "issue.assigned", "message.created"} <= {e["type"] for e in narrow}
    for event in narrow:
        assert event["data"]["issue"]["requester"] == {"id": desk.contact_id}, event["type"]
    [assigned] = _by_type(narrow, "issue.assigned")
    assert assigned["assignee"] == {"type": "member", "id": desk.member_id, "name": "Roy Trenneman"}
    assert REQUESTER not in str(narrow)
    [created] = _by_type(wide, "issue.created")
    assert created["issue"]["requester"] == {
        "id": desk.contact_id,
        "email": REQUESTER,
        "name": "Maurice Moss",
    }
    for event in wide:
        if event["type"].startswith(("issue.", "message.")):
            assert event["data"]["issue"]["requester"]["email"] == REQUESTER


def test_member_events_need_members_read_and_then_show_everything(desk: Desk) -> None:
    api = desk.workspace.client()
    assert update_member(api, desk.member_id, role="admin")["error"] is None

    narrow = all_events(desk.client(NARROW))
    wide = all_events(desk.client(WIDE))

    assert not [event for event in narrow if event["type"].startswith("member.")]
    [agent] = [
        d["member"] for d in _by_type(wide, "member.created") if d["member"]["email"] == AGENT
    ]
    assert (agent["id"], agent["name"], agent["role"]) == (desk.member_id, "Roy Trenneman", "agent")
    [updated] = _by_type(wide, "member.updated")
    assert updated["member"]["email"] == AGENT
    assert updated["changes"] == {"role": {"from": "agent", "to": "admin"}}


def test_events_hide_only_the_kind_of_person_the_key_may_not_read(desk: Desk) -> None:
    members_only = all_events(desk.client(["issues:read", "members:read"]))
    contacts_only = all_events(desk.client(["contacts:read", "issues:read"]))

    assert _by_type(members_only, "issue.created")[0]["issue"]["requester"] == {
        "id": desk.contact_id
    }
    assert AGENT in [d["member"]["email"] for d in _by_type(members_only, "member.created")]
    requester = _by_type(contacts_only, "issue.created")[0]["issue"]["requester"]
    assert requester["email"] == REQUESTER
    [contact] = _by_type(contacts_only, "contact.created")
    assert contact["contact"]["email"] == REQUESTER


DELIVERED = """query($id: ID!) { node(id: $id) { ... on WebhookEndpoint {
  deliveries(first: 10) { edges { node { event { type data } } } } } } }"""


def test_a_delivery_s_event_shows_people_as_the_feed_does(workspace: WorkspaceFixture) -> None:
    full = workspace.client()
    endpoint = new_endpoint(full, eventTypes=["issue.created"])["webhookEndpoint"]
    new_issue(full, requesterEmail=REQUESTER, requesterName="Maurice Moss")
    admin = workspace.client(workspace.create_key(["issues:read", "webhooks:manage"]))

    [seen] = admin.ok(DELIVERED, {"id": endpoint["id"]})["node"]["deliveries"]["edges"]
    [whole] = full.ok(DELIVERED, {"id": endpoint["id"]})["node"]["deliveries"]["edges"]

    assert seen["node"]["event"]["type"] == "issue.created"
    assert list(seen["node"]["event"]["data"]["issue"]["requester"]) == ["id"]
    assert REQUESTER not in str(seen)
    assert whole["node"]["event"]["data"]["issue"]["requester"]["email"] == REQUESTER
