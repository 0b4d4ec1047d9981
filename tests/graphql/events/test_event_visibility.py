"""Who sees which events (CONTRACT section 11): a key sees the events whose object it may
read; `events` needs one of those scopes; nothing crosses workspaces."""

from __future__ import annotations

from typing import Any

import pytest

from supportdesk.auth.scopes import SCOPES
from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.accounts.helpers import new_account
from tests.graphql.articles.helpers import new_article
from tests.graphql.events.helpers import EVENTS, all_events, types_of
from tests.graphql.issues.helpers import new_issue, reply

# CONTRACT section 11, written out: the object families each scope reads.
FAMILIES_BY_SCOPE = {
    "issues:read": {"issue", "message"},
    "contacts:read": {"contact"},
    "accounts:read": {"account"},
    "articles:read": {"article"},
    "machine_users:manage": {"machine_user"},
    "api_keys:manage": {"api_key"},
    "webhooks:manage": {"webhook_endpoint"},
    "members:read": {"member"},
    "mailboxes:manage": {"mailbox"},
}
READ_ONLY = ["accounts:read", "articles:read", "contacts:read", "issues:read", "members:read"]
NO_READING_SCOPE = sorted(set(SCOPES) - set(FAMILIES_BY_SCOPE))


def family(event: dict[str, Any]) -> str:
    return str(event["type"]).split(".", 1)[0]


def one_of_each(api: GraphQLClient) -> None:
    """Events of every family the API can make: contact, issue, message, account, article,
    machine user and API key (created and revoked)."""
    issue = new_issue(api, requesterEmail="visible@example.com")
    assert reply(api, issue["id"], "On it", status="open")["error"] is None
    new_account(api, name="Acme", domain="acme.test")
    new_article(api, title="How to")
    owner = factories.machine_user(api, "Owner")
    key = factories.api_key(api, owner["id"], ["issues:read"])
    api.ok(factories.REVOKE_API_KEY, {"id": key["apiKey"]["id"]})


def test_a_read_only_key_sees_the_objects_it_reads_and_no_admin_events(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    reader = workspace.client(workspace.create_key(READ_ONLY))
    one_of_each(api)

    seen = all_events(reader)
    everything = all_events(api)

    assert {"issue.created", "issue.updated", "message.created", "contact.created"} <= set(
        types_of(seen)
    )
    assert {"account.created", "article.created"} <= set(types_of(seen))
    assert not [event for event in seen if family(event) in {"api_key", "machine_user"}]
    readable = [e for e in everything if family(e) not in {"api_key", "machine_user"}]
    assert [event["id"] for event in seen] == [event["id"] for event in readable]


def test_a_key_with_only_api_keys_manage_sees_api_key_events_only(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    admin = workspace.client(workspace.create_key(["api_keys:manage"]))
    one_of_each(api)

    seen = all_events(admin)

    assert set(types_of(seen)) == {"api_key.created", "api_key.revoked"}
    everything = all_events(api)
    assert [event["id"] for event in seen] == [
        event["id"] for event in everything if family(event) == "api_key"
    ]


@pytest.mark.parametrize("scope", sorted(FAMILIES_BY_SCOPE.keys() & SCOPES.keys()))
def test_each_reading_scope_sees_exactly_its_objects_events(
    workspace: WorkspaceFixture, api: GraphQLClient, scope: str
) -> None:
    key = workspace.client(workspace.create_key([scope]))
    one_of_each(api)

    seen = all_events(key)

    expected = [e["id"] for e in all_events(api) if family(e) in FAMILIES_BY_SCOPE[scope]]
    assert [event["id"] for event in seen] == expected
    total = key.ok(EVENTS, {"first": 1})["events"]["totalCount"]
    assert total == len(expected)


@pytest.mark.parametrize("scope", NO_READING_SCOPE)
def test_a_key_without_a_reading_scope_is_forbidden(
    workspace: WorkspaceFixture, scope: str
) -> None:
    key = workspace.client(workspace.create_key([scope]))

    answer = key(EVENTS, {"first": 10})

    assert answer.status == 200
    assert answer.data["events"] is None
    extensions = answer.error_at("events")["extensions"]
    assert extensions == {"code": "FORBIDDEN", "requiredScopes": sorted(FAMILIES_BY_SCOPE)}


def test_a_legacy_key_is_forbidden(workspace: WorkspaceFixture) -> None:
    legacy = workspace.client(workspace.create_key([], legacy=True))

    answer = legacy(EVENTS, {"first": 10})

    assert answer.data.get("events") is None
    assert answer.codes == ["FORBIDDEN"]


def test_another_workspace_s_events_never_show(
    workspace: WorkspaceFixture, api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    theirs = other_workspace.client()
    one_of_each(theirs)
    their_ids = {event["id"] for event in all_events(theirs)}
    one_of_each(api)

    ours = all_events(api)

    assert {event["workspaceId"] for event in ours} == {workspace.id}
    assert not their_ids & {event["id"] for event in ours}
    assert [event["sequence"] for event in ours] == list(range(1, len(ours) + 1))


def test_another_workspace_s_cursor_is_refused(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    one_of_each(api)
    theirs = other_workspace.client()
    cursor = theirs.ok(EVENTS, {"first": 1})["events"]["pageInfo"]["endCursor"]
    assert cursor

    answer = api(EVENTS, {"first": 10, "after": cursor})

    assert answer.codes == ["BAD_USER_INPUT"]
    assert answer.data.get("events") is None
