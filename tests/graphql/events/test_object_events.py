"""Mutations of contacts, accounts, articles, machine users and API keys record their events
(CONTRACT section 11): the right type, in sequence order, the object after the change in the
API's field names, `changes` for an update, and the acting key's machine user as actor."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest

from supportdesk.auth.scopes import SCOPES
from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.accounts.helpers import new_account, update_account
from tests.graphql.articles.helpers import (
    PUBLISH_ARTICLE,
    UNPUBLISH_ARTICLE,
    UPDATE_ARTICLE,
    new_article,
)
from tests.graphql.contacts.helpers import new_contact, update_contact
from tests.graphql.events.helpers import all_events, events_after, last_sequence, types_of
from tests.graphql.issues.helpers import new_issue

UPDATE_MACHINE_USER = """
mutation($input: UpdateMachineUserInput!) {
  updateMachineUser(input: $input) {
    machineUser { id name description managed createdAt updatedAt }
    error { code message fields { field code } }
  }
}
"""
REVOKE_API_KEY = """
mutation($id: ID!) {
  revokeApiKey(id: $id) {
    apiKey { id name keyPrefix scopes kind status createdAt expiresAt revokedAt
             machineUser { id } }
    error { code message }
  }
}
"""


@dataclass
class Bot:
    """A machine user of its own (not the workspace's managed one) acting with a key that
    holds every scope: its id and name must be the actor of what it does."""

    id: str
    name: str
    api: GraphQLClient

    @property
    def actor(self) -> dict[str, str]:
        return {"type": "machine_user", "id": self.id, "name": self.name}


@pytest.fixture
def bot(workspace: WorkspaceFixture, api: GraphQLClient) -> Bot:
    user = factories.machine_user(api, "Sync Bot")
    secret = factories.api_key(api, user["id"], sorted(SCOPES), name="bot key")["secret"]
    return Bot(user["id"], user["name"], workspace.client(secret))


def recorded(bot: Bot, start: int) -> list[dict[str, Any]]:
    """The events after `start`: consecutive sequences from start + 1, each by the bot."""
    found = events_after(bot.api, start)
    assert [event["sequence"] for event in found] == list(
        range(start + 1, start + 1 + len(found))
    ), found
    for event in found:
        assert event["actor"] == bot.actor, event
    return found


def succeeded(payload: dict[str, Any]) -> dict[str, Any]:
    """A mutation payload without an error."""
    assert payload["error"] is None, payload
    return payload


# --- Contacts ---------------------------------------------------------------------------


def test_creating_a_contact_records_contact_created(bot: Bot) -> None:
    start = last_sequence(bot.api)

    contact = new_contact(bot.api, email="jen@example.com", name="Jen Barber")

    [event] = recorded(bot, start)
    assert event["type"] == "contact.created"
    assert event["data"] == {
        "contact": {
            "id": contact["id"],
            "email": "jen@example.com",
            "name": "Jen Barber",
            "accountId": None,
            "createdAt": contact["createdAt"],
            "updatedAt": contact["updatedAt"],
        }
    }


def test_updating_a_contact_records_what_changed(bot: Bot) -> None:
    contact = new_contact(bot.api, email="roy@example.com", name="Roy")
    start = last_sequence(bot.api)

    updated = succeeded(update_contact(bot.api, contact["id"], name="Roy Trenneman"))
    update_contact(bot.api, contact["id"], name="Roy Trenneman")  # no change: no event

    [event] = recorded(bot, start)
    assert event["type"] == "contact.updated"
    assert event["data"]["changes"] == {"name": {"from": "Roy", "to": "Roy Trenneman"}}
    assert event["data"]["contact"]["name"] == "Roy Trenneman"
    assert event["data"]["contact"]["updatedAt"] == updated["contact"]["updatedAt"]


def test_a_new_email_at_an_account_s_domain_changes_the_email_and_the_account(
    bot: Bot,
) -> None:
    account = new_account(bot.api, name="Reynholm", domain="reynholm.test")
    contact = new_contact(bot.api, email="douglas@elsewhere.test")
    start = last_sequence(bot.api)

    update_contact(bot.api, contact["id"], email="douglas@reynholm.test")

    [event] = recorded(bot, start)
    assert event["type"] == "contact.updated"
    assert event["data"]["changes"] == {
        "email": {"from": "douglas@elsewhere.test", "to": "douglas@reynholm.test"},
        "accountId": {"from": None, "to": account["id"]},
    }
    assert event["data"]["contact"]["accountId"] == account["id"]


def test_create_issue_filling_in_a_contact_s_missing_name_records_contact_updated(
    bot: Bot,
) -> None:
    contact = new_contact(bot.api, email="richmond@example.com")
    start = last_sequence(bot.api)

    new_issue(bot.api, requesterEmail="richmond@example.com", requesterName="Richmond")

    found = recorded(bot, start)
    # The contact did change: the issue's requester now has the name.
    assert found[-1]["data"]["issue"]["requester"]["name"] == "Richmond"
    assert types_of(found) == ["contact.updated", "issue.created"]
    assert found[0]["data"]["contact"]["id"] == contact["id"]
    assert found[0]["data"]["changes"] == {"name": {"from": None, "to": "Richmond"}}


# --- Accounts ---------------------------------------------------------------------------


def test_creating_an_account_records_account_created(bot: Bot) -> None:
    start = last_sequence(bot.api)

    account = new_account(bot.api, name="Acme", domain="acme.test")

    [event] = recorded(bot, start)
    assert event["type"] == "account.created"
    assert event["data"] == {
        "account": {
            "id": account["id"],
            "name": "Acme",
            "domain": "acme.test",
            "createdAt": account["createdAt"],
            "updatedAt": account["updatedAt"],
        }
    }


def test_an_account_whose_domain_links_contacts_records_each_contact_after_it(
    bot: Bot,
) -> None:
    first = new_contact(bot.api, email="one@acme.test")
    second = new_contact(bot.api, email="two@ACME.test")
    new_contact(bot.api, email="three@other.test")  # another domain: stays
    elsewhere = new_account(bot.api, name="Elsewhere")
    new_contact(bot.api, email="four@acme.test", accountId=elsewhere["id"])  # attached: stays
    start = last_sequence(bot.api)

    account = new_account(bot.api, name="Acme", domain="acme.test")

    created, *linked = recorded(bot, start)
    assert created["type"] == "account.created"
    assert created["data"]["account"]["id"] == account["id"]
    assert types_of(linked) == ["contact.updated", "contact.updated"]
    assert {event["data"]["contact"]["id"] for event in linked} == {first["id"], second["id"]}
    for event in linked:
        assert event["data"]["changes"] == {"accountId": {"from": None, "to": account["id"]}}
        assert event["data"]["contact"]["accountId"] == account["id"]
    by_id = {event["data"]["contact"]["id"]: event["data"]["contact"] for event in linked}
    assert by_id[first["id"]]["email"] == "one@acme.test"
    assert by_id[second["id"]]["email"] == "two@ACME.test"
    assert by_id[first["id"]]["createdAt"] == first["createdAt"]


def test_updating_an_account_records_what_changed(bot: Bot) -> None:
    account = new_account(bot.api, name="Acme")
    start = last_sequence(bot.api)

    updated = succeeded(update_account(bot.api, account["id"], name="Acme Ltd"))
    update_account(bot.api, account["id"], name="Acme Ltd")  # no change: no event

    [event] = recorded(bot, start)
    assert event["type"] == "account.updated"
    assert event["data"]["changes"] == {"name": {"from": "Acme", "to": "Acme Ltd"}}
    assert event["data"]["account"] == {
        "id": account["id"],
        "name": "Acme Ltd",
        "domain": None,
        "createdAt": account["createdAt"],
        "updatedAt": updated["account"]["updatedAt"],
    }


def test_clearing_an_account_s_domain_records_the_change_and_moves_no_contact(
    bot: Bot,
) -> None:
    account = new_account(bot.api, name="Fire", domain="fire.test")
    new_contact(bot.api, email="jen@fire.test")
    start = last_sequence(bot.api)

    update_account(bot.api, account["id"], domain=None)

    [event] = recorded(bot, start)
    assert event["type"] == "account.updated"
    assert event["data"]["changes"] == {"domain": {"from": "fire.test", "to": None}}
    assert event["data"]["account"]["domain"] is None


def test_a_domain_set_on_an_account_records_the_account_then_the_contacts_it_links(
    bot: Bot,
) -> None:
    contact = new_contact(bot.api, email="moss@fire.test")
    account = new_account(bot.api, name="Fire")
    start = last_sequence(bot.api)

    update_account(bot.api, account["id"], domain="fire.test")

    updated, linked = recorded(bot, start)
    assert updated["type"] == "account.updated"
    assert updated["data"]["changes"] == {"domain": {"from": None, "to": "fire.test"}}
    assert linked["type"] == "contact.updated"
    assert linked["data"]["contact"]["id"] == contact["id"]
    assert linked["data"]["changes"] == {"accountId": {"from": None, "to": account["id"]}}


# --- Articles ---------------------------------------------------------------------------


def test_creating_an_article_records_article_created(bot: Bot) -> None:
    start = last_sequence(bot.api)

    article = new_article(bot.api, title="Getting started", body="Turn it off and on.")

    [event] = recorded(bot, start)
    assert event["type"] == "article.created"
    assert event["data"] == {
        "article": {
            "id": article["id"],
            "title": "Getting started",
            "body": "Turn it off and on.",
            "status": "draft",
            "createdAt": article["createdAt"],
            "updatedAt": article["updatedAt"],
            "publishedAt": None,
        }
    }


def test_updating_an_article_records_only_the_fields_that_changed(bot: Bot) -> None:
    article = new_article(bot.api, title="Old title", body="Same body")
    start = last_sequence(bot.api)

    bot.api.ok(
        UPDATE_ARTICLE, {"input": {"id": article["id"], "title": "New title", "body": "Same body"}}
    )
    bot.api.ok(UPDATE_ARTICLE, {"input": {"id": article["id"], "title": "New title"}})

    [event] = recorded(bot, start)
    assert event["type"] == "article.updated"
    assert event["data"]["changes"] == {"title": {"from": "Old title", "to": "New title"}}
    assert event["data"]["article"]["title"] == "New title"
    assert event["data"]["article"]["body"] == "Same body"


def test_publishing_records_article_published_once(bot: Bot) -> None:
    article = new_article(bot.api)
    start = last_sequence(bot.api)

    published = succeeded(bot.api.ok(PUBLISH_ARTICLE, {"id": article["id"]})["publishArticle"])
    bot.api.ok(PUBLISH_ARTICLE, {"id": article["id"]})  # already published: no event

    [event] = recorded(bot, start)
    assert event["type"] == "article.published"
    published_at = published["article"]["publishedAt"]
    assert published_at is not None
    assert event["data"]["article"]["status"] == "published"
    assert event["data"]["article"]["publishedAt"] == published_at
    assert event["data"]["changes"] == {
        "status": {"from": "draft", "to": "published"},
        "publishedAt": {"from": None, "to": published_at},
    }


def test_unpublishing_records_article_unpublished_once(bot: Bot) -> None:
    article = new_article(bot.api, status="published")
    start = last_sequence(bot.api)

    bot.api.ok(UNPUBLISH_ARTICLE, {"id": article["id"]})
    bot.api.ok(UNPUBLISH_ARTICLE, {"id": article["id"]})  # already a draft: no event

    [event] = recorded(bot, start)
    assert event["type"] == "article.unpublished"
    assert event["data"]["article"]["status"] == "draft"
    assert event["data"]["article"]["publishedAt"] is None
    assert event["data"]["changes"] == {
        "status": {"from": "published", "to": "draft"},
        "publishedAt": {"from": article["publishedAt"], "to": None},
    }


# --- Machine users ----------------------------------------------------------------------


def test_creating_a_machine_user_records_machine_user_created(bot: Bot) -> None:
    start = last_sequence(bot.api)

    user = factories.machine_user(bot.api, "Importer", "Nightly import")

    [event] = recorded(bot, start)
    assert event["type"] == "machine_user.created"
    assert event["data"] == {
        "machineUser": {
            "id": user["id"],
            "name": "Importer",
            "description": "Nightly import",
            "managed": False,
            "createdAt": user["createdAt"],
            "updatedAt": user["updatedAt"],
        }
    }


def test_renaming_a_machine_user_records_the_name_change_only(bot: Bot) -> None:
    user = factories.machine_user(bot.api, "Importer", "Nightly import")
    start = last_sequence(bot.api)

    bot.api.ok(UPDATE_MACHINE_USER, {"input": {"id": user["id"], "name": "Exporter"}})
    bot.api.ok(UPDATE_MACHINE_USER, {"input": {"id": user["id"], "name": "Exporter"}})

    [event] = recorded(bot, start)
    assert event["type"] == "machine_user.updated"
    assert event["data"]["changes"] == {"name": {"from": "Importer", "to": "Exporter"}}
    assert event["data"]["machineUser"]["name"] == "Exporter"
    assert event["data"]["machineUser"]["description"] == "Nightly import"


def test_changing_a_machine_user_s_description_records_that_change_only(bot: Bot) -> None:
    user = factories.machine_user(bot.api, "Importer", "Nightly import")
    start = last_sequence(bot.api)

    bot.api.ok(UPDATE_MACHINE_USER, {"input": {"id": user["id"], "description": "Hourly"}})

    [event] = recorded(bot, start)
    assert event["type"] == "machine_user.updated"
    assert event["data"]["changes"] == {"description": {"from": "Nightly import", "to": "Hourly"}}


def test_the_actor_shows_the_machine_user_s_current_name(bot: Bot, api: GraphQLClient) -> None:
    api.ok(UPDATE_MACHINE_USER, {"input": {"id": bot.id, "name": "Renamed Bot"}})
    start = last_sequence(api)

    new_article(bot.api, title="By the renamed bot")

    [event] = events_after(api, start)
    assert event["actor"] == {"type": "machine_user", "id": bot.id, "name": "Renamed Bot"}


# --- API keys ---------------------------------------------------------------------------


def test_creating_a_key_records_api_key_created_without_its_secret(bot: Bot) -> None:
    owner = factories.machine_user(bot.api, "Key owner")
    start = last_sequence(bot.api)

    created = factories.api_key(
        bot.api, owner["id"], ["issues:write", "issues:read"], expires_at="2099-01-01T00:00:00Z"
    )

    [event] = recorded(bot, start)
    secret = created["secret"]
    key = created["apiKey"]
    assert event["type"] == "api_key.created"
    data = event["data"]["apiKey"]
    assert data["id"] == key["id"]
    assert data["name"] == "test key"
    assert data["keyPrefix"] == key["keyPrefix"] == secret[:12]
    assert data["scopes"] == ["issues:read", "issues:write"]
    assert data["kind"] == "standard"
    assert data["status"] == "active"
    assert data["machineUserId"] == owner["id"]
    assert data["createdAt"] == key["createdAt"]
    assert data["expiresAt"] == key["expiresAt"] == "2099-01-01T00:00:00.000Z"
    assert data["revokedAt"] is None
    assert secret not in json.dumps(event)
    # The secret's random body is nowhere in the feed either (not under another field).
    assert secret[12:] not in json.dumps(all_events(bot.api))


def test_revoking_a_key_records_api_key_revoked_once(bot: Bot) -> None:
    owner = factories.machine_user(bot.api, "Key owner")
    created = factories.api_key(bot.api, owner["id"], ["issues:read"])
    start = last_sequence(bot.api)

    revoked = succeeded(bot.api.ok(REVOKE_API_KEY, {"id": created["apiKey"]["id"]})["revokeApiKey"])
    bot.api.ok(REVOKE_API_KEY, {"id": created["apiKey"]["id"]})  # already revoked: no event

    [event] = recorded(bot, start)
    assert event["type"] == "api_key.revoked"
    data = event["data"]["apiKey"]
    assert data["id"] == created["apiKey"]["id"]
    assert data["status"] == "revoked"
    assert data["revokedAt"] == revoked["apiKey"]["revokedAt"]
    assert data["keyPrefix"] == created["apiKey"]["keyPrefix"]
    assert created["secret"] not in json.dumps(event)


# --- Refusals and concurrency -------------------------------------------------------------


def test_refused_mutations_record_nothing(bot: Bot) -> None:
    new_contact(bot.api, email="taken@example.com")
    new_account(bot.api, name="Taken", domain="taken.test")
    other = new_account(bot.api, name="Other", domain="other.test")
    factories.machine_user(bot.api, "Taken name")
    renamed = factories.machine_user(bot.api, "Free name")
    limited = factories.api_key(bot.api, bot.id, ["api_keys:manage"])
    start = last_sequence(bot.api)

    refusals = [
        payload["error"]["code"]
        for payload in (
            bot.api.ok(
                "mutation($i: CreateContactInput!) { createContact(input: $i) { error { code } } }",
                {"i": {"email": "TAKEN@example.com"}},
            )["createContact"],
            bot.api.ok(
                "mutation($i: CreateAccountInput!) { createAccount(input: $i) { error { code } } }",
                {"i": {"name": "Again", "domain": "taken.test"}},
            )["createAccount"],
            update_account(bot.api, other["id"], domain="taken.test"),
            bot.api.ok(UPDATE_MACHINE_USER, {"input": {"id": renamed["id"], "name": "taken NAME"}})[
                "updateMachineUser"
            ],
            bot.api.ok(
                factories.CREATE_API_KEY,
                {"input": {"machineUserId": bot.id, "name": "x", "scopes": ["issues:read"]}},
                key=limited["secret"],
            )["createApiKey"],
        )
    ]

    assert refusals == [
        "ALREADY_EXISTS",
        "ALREADY_EXISTS",
        "ALREADY_EXISTS",
        "ALREADY_EXISTS",
        "SCOPE_ESCALATION",
    ]
    assert events_after(bot.api, start) == []


def test_concurrent_mutations_of_different_objects_are_gap_free(bot: Bot) -> None:
    start = last_sequence(bot.api)
    makers = [
        lambda n: new_contact(bot.api, email=f"c{n}@example.com"),
        lambda n: new_account(bot.api, name=f"Account {n}"),
        lambda n: new_article(bot.api, title=f"Article {n}"),
        lambda n: factories.machine_user(bot.api, f"User {n}"),
    ]

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: makers[n % 4](n), range(32)))

    found = recorded(bot, start)
    assert len(found) == 32
    assert sorted(types_of(found)) == sorted(
        ["contact.created", "account.created", "article.created", "machine_user.created"] * 8
    )


# --- Workspace -------------------------------------------------------------------------


def test_a_new_workspace_starts_its_feed_with_its_admin_managed_user_and_first_key(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    info = api.ok("{ apiInfo }")["apiInfo"]

    found = all_events(api)

    admin, managed, key = found[:3]
    assert [admin["sequence"], managed["sequence"], key["sequence"]] == [1, 2, 3]
    assert admin["type"] == "member.created"
    assert admin["data"]["member"]["id"] == workspace.made.admin.id
    assert admin["data"]["member"]["role"] == "admin"
    assert admin["data"]["member"]["email"] == workspace.admin_email
    assert managed["type"] == "machine_user.created"
    assert managed["data"]["machineUser"]["id"] == info["machineUser"]["id"]
    assert managed["data"]["machineUser"]["managed"] is True
    assert key["type"] == "api_key.created"
    assert key["data"]["apiKey"]["id"] == info["key"]["id"]
    assert key["data"]["apiKey"]["keyPrefix"] == workspace.key[:12]
    for event in (admin, managed, key):
        assert event["actor"]["type"] == "system"
        assert event["workspaceId"] == workspace.id
    assert workspace.key not in json.dumps(found)
