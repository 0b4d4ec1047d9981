"""Settings → Webhooks over HTTP: endpoints made with their secret shown once, the address
rules, editing, enabling, test sends, redelivery, rotation, deletion after confirming, and the
events each change records with the org admin as actor."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator

import pytest
from sqlalchemy import update

from supportdesk.db.tables import org_admins
from tests.client import GraphQLClient
from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture, make_workspace
from tests.graphql.events.helpers import events_after, last_sequence
from tests.graphql.issues.helpers import new_issue
from tests.graphql.webhooks.helpers import RECEIVER, new_endpoint
from tests.servers import RunningServer
from tests.web.settings_client import SettingsClient, hidden_fields

_SECRET = re.compile(r'id="secret"[^>]*>(whsec_[A-Za-z0-9+/=]+)<')
_ENDPOINT_LINK = re.compile(r'href="/settings/webhooks/(whk_[0-9A-Za-z]+)"')


def webhook_secret_on(page: str) -> str | None:
    found = _SECRET.search(page)
    return found.group(1) if found else None


def endpoint_id_on(page: str) -> str:
    found = _ENDPOINT_LINK.search(page)
    assert found, page[:500]
    return found.group(1)


@pytest.fixture
def admin(workspace: WorkspaceFixture) -> SettingsClient:
    return SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )


def create(admin: SettingsClient, **fields: object) -> tuple[int, str]:
    form: dict[str, object] = {"url": RECEIVER, "events": "all", "enabled": "true", **fields}
    answer = admin.submit("/settings/webhooks/new", "/settings/webhooks", form)
    return answer.status_code, answer.text


def created(admin: SettingsClient, **fields: object) -> tuple[str, str]:
    """A new endpoint's id and secret, made on the page."""
    status, page = create(admin, **fields)
    secret = webhook_secret_on(page)
    assert status == 200 and secret, page[:500]
    return endpoint_id_on(page), secret


def endpoint_count(admin: SettingsClient) -> int:
    return admin.get("/settings/webhooks").text.count("data-endpoint-id=")


def act(admin: SettingsClient, endpoint_id: str, action: str, **fields: str) -> str:
    """Press a button of the endpoint's page; the page it leads back to."""
    path = f"/settings/webhooks/{endpoint_id}"
    answer = admin.post(f"{path}/{action}", {"csrf_token": admin.csrf_token(), **fields})
    assert answer.status_code == 303, (answer.status_code, answer.text[:500])
    return admin.get(answer.headers["location"]).text


def delivery_rows(page: str) -> list[str]:
    return re.findall(r'<tr class="row-[a-z]+" data-delivery-id="[^"]+">.*?</tr>', page, re.S)


def without_form_tokens(page: str) -> str:
    return re.sub(r'name="submission_token" value="[^"]*"', "", page)


def org_admin(workspace: WorkspaceFixture) -> dict[str, str]:
    return {"type": "org_admin", "id": workspace.made.admin.id, "name": workspace.admin_email}


# --- Creating ------------------------------------------------------------------------------


def test_a_new_endpoint_s_secret_is_shown_once_and_never_again(
    admin: SettingsClient, api: GraphQLClient
) -> None:
    form_page = admin.get("/settings/webhooks/new").text
    fields = {
        **hidden_fields(form_page),
        "url": RECEIVER,
        "description": "CRM bridge",
        "events": "selected",
        "event_types": "issue.created",
        "enabled": "true",
    }

    first = admin.post("/settings/webhooks", fields)
    again = admin.post("/settings/webhooks", fields)  # a reload sends the form again

    secret = webhook_secret_on(first.text)
    assert first.status_code == 200 and secret, first.text[:500]
    assert "Copy this secret now. It is shown only once." in first.text
    assert first.headers["cache-control"] == "no-store"
    assert "location" not in first.headers
    assert secret not in admin.http.cookies.get("supportdesk_session", "")
    assert again.status_code == 409 and "already sent" in again.text
    assert webhook_secret_on(again.text) is None and secret not in again.text
    endpoint_id = endpoint_id_on(first.text)
    for path in ("/settings/webhooks", f"/settings/webhooks/{endpoint_id}", "/settings/audit"):
        assert secret not in admin.get(path).text
    listing = admin.get("/settings/webhooks").text
    assert listing.count("data-endpoint-id=") == 1
    assert secret[:12] in listing and "CRM bridge" in listing and "issue.created" in listing
    [endpoint] = [
        edge["node"]
        for edge in api.ok("{ webhookEndpoints { edges { node { id eventTypes enabled } } } }")[
            "webhookEndpoints"
        ]["edges"]
    ]
    assert endpoint == {"id": endpoint_id, "eventTypes": ["issue.created"], "enabled": True}


def test_all_events_and_disabled_from_the_start(admin: SettingsClient, api: GraphQLClient) -> None:
    endpoint_id, _ = created(admin, enabled="", event_types=["issue.created"])

    detail = admin.get(f"/settings/webhooks/{endpoint_id}").text
    node = api.ok(
        "query($id: ID!) { node(id: $id) { ... on WebhookEndpoint { eventTypes status"
        " disabledReason } } }",
        {"id": endpoint_id},
    )["node"]
    assert node == {"eventTypes": [], "status": "disabled", "disabledReason": "manual"}
    assert "All events" in detail and "Disabled by an org admin" in detail


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://169.254.169.254/latest/meta-data/", "may not receive webhooks"),
        ("https://169.254.169.254/latest/meta-data/", "a link-local address, which is never"),
        ("https://127.0.0.1/hook", "not a public address"),
        ("http://93.184.215.14/hook", "must start with https://"),
        ("https://user:pw@93.184.215.14/hook", "must not contain a user name"),
    ],
)
def test_an_unsafe_url_is_explained_on_the_form_and_makes_nothing(
    admin: SettingsClient, url: str, message: str
) -> None:
    status, page = create(admin, url=url, description="kept")

    assert status == 400
    assert message in html.unescape(page)
    assert 'class="field-error" id="url-error"' in page
    assert 'value="kept"' in page  # the form keeps what was typed
    assert webhook_secret_on(page) is None
    assert endpoint_count(admin) == 0


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"url": "  "}, "Enter the URL that receives the events."),
        ({"url": RECEIVER + "/" + "x" * 2100}, "2,048 characters or fewer"),
        ({"description": "d" * 501}, "500 characters or fewer"),
        ({"events": "selected"}, "Choose at least one event type, or All events."),
        ({"events": "selected", "event_types": ["issue.exploded"]}, "Unknown event types"),
    ],
)
def test_bad_input_is_shown_again_with_its_error(
    admin: SettingsClient, fields: dict[str, object], message: str
) -> None:
    status, page = create(admin, **fields)

    assert status == 400 and message in page
    assert 'name="submission_token"' in page
    assert endpoint_count(admin) == 0


def test_the_limit_of_25_endpoints_is_explained(admin: SettingsClient, api: GraphQLClient) -> None:
    for _ in range(25):
        new_endpoint(api)

    status, page = create(admin)
    listing = admin.get("/settings/webhooks").text

    assert status == 409
    assert "at most 25 webhook endpoints; delete one first." in page
    assert "the most it may have" in listing and 'href="/settings/webhooks/new"' not in listing


@pytest.fixture
def keyless_server(server: RunningServer) -> Iterator[RunningServer]:
    """A PostgreSQL deployment without SUPPORTDESK_SECRET_KEY: it cannot seal secrets."""
    if server.backend != "postgresql":
        pytest.skip("SQLite keeps a key file beside the database: always configured")
    running = RunningServer(server.backend, server.database_url, webhook_dispatch=False).start()
    yield running
    running.stop()


def test_without_a_server_key_the_page_names_the_setting(keyless_server: RunningServer) -> None:
    workspace = make_workspace(keyless_server)
    admin = SettingsClient(keyless_server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )

    status, page = create(admin)

    assert status == 503
    assert "SUPPORTDESK_SECRET_KEY" in page and 'class="alert error"' in page
    assert endpoint_count(admin) == 0


# --- Who may ------------------------------------------------------------------------------


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(
    admin: SettingsClient,
) -> None:
    endpoint_id, _ = created(admin)
    base = f"/settings/webhooks/{endpoint_id}"
    posts = [
        ("/settings/webhooks", {"url": RECEIVER, "events": "all"}),
        (f"{base}/edit", {"url": RECEIVER, "description": "forged", "events": "all"}),
        (f"{base}/enabled", {"enabled": "false"}),
        (f"{base}/test", {}),
        (f"{base}/rotate", {"keep_previous": "0"}),
        (f"{base}/delete", {}),
    ]
    before = admin.get(base).text

    for path, fields in posts:
        answer = admin.post(path, fields)
        assert answer.status_code == 403, path
        assert "Form expired" in answer.text
        assert admin.post(path, {**fields, "csrf_token": "x" * 43}).status_code == 403

    assert without_form_tokens(admin.get(base).text) == without_form_tokens(before)
    assert endpoint_count(admin) == 1


def test_a_person_who_is_not_an_org_admin_is_refused(workspace: WorkspaceFixture) -> None:
    agent = SettingsClient(workspace.server.base_url)
    logged_in = agent.login(workspace.add_person("agent"), ADMIN_PASSWORD)

    assert logged_in.status_code == 303
    assert agent.get("/settings/webhooks").status_code == 403
    assert agent.get("/settings/webhooks/new").status_code == 403


def test_an_admin_made_an_agent_loses_the_page_at_once(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    endpoint_id, _ = created(admin)
    token = admin.csrf_token()

    async def demote() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.execute(
                update(org_admins)
                .where(
                    org_admins.c.workspace_id == workspace.id,
                    org_admins.c.id == workspace.made.admin.id,
                )
                .values(role="agent")
            )

    workspace.server.call(demote())
    listing = admin.get("/settings/webhooks")
    deleting = admin.post(f"/settings/webhooks/{endpoint_id}/delete", {"csrf_token": token})

    assert listing.status_code == 403 and "Settings are for org admins" in listing.text
    assert RECEIVER not in listing.text
    assert deleting.status_code == 403
    assert workspace.client().ok("query($id: ID!) { node(id: $id) { id } }", {"id": endpoint_id})[
        "node"
    ] == {"id": endpoint_id}


def test_another_workspace_s_endpoint_is_not_found(
    admin: SettingsClient, other_workspace: WorkspaceFixture
) -> None:
    theirs = new_endpoint(other_workspace.client())["webhookEndpoint"]["id"]
    token = admin.csrf_token()

    for path in ("", "/edit", "/delete"):
        answer = admin.get(f"/settings/webhooks/{theirs}{path}")
        assert answer.status_code == 404 and "Webhook endpoint not found" in answer.text
    for path in ("/delete", "/test", "/enabled"):
        answer = admin.post(f"/settings/webhooks/{theirs}{path}", {"csrf_token": token})
        assert answer.status_code == 404
    assert admin.get("/settings/webhooks/not-an-id").status_code == 404
    assert other_workspace.client().ok("query($id: ID!) { node(id: $id) { id } }", {"id": theirs})[
        "node"
    ] == {"id": theirs}


# --- One endpoint ---------------------------------------------------------------------------


def test_deleting_needs_a_confirmation(admin: SettingsClient, api: GraphQLClient) -> None:
    endpoint_id, _ = created(admin)
    path = f"/settings/webhooks/{endpoint_id}/delete"

    detail = admin.get(f"/settings/webhooks/{endpoint_id}").text
    confirm = admin.get(path)
    still_there = endpoint_count(admin)
    deleted = admin.submit(path, path)

    assert f'href="{path}"' in detail and f'action="{path}"' not in detail
    assert confirm.status_code == 200 and "Delete this endpoint?" in confirm.text
    assert f'action="{path}"' in confirm.text
    assert still_there == 1
    assert deleted.status_code == 303 and deleted.headers["location"] == "/settings/webhooks"
    listing = admin.get("/settings/webhooks").text
    assert "is deleted" in listing and RECEIVER not in listing
    assert admin.get(f"/settings/webhooks/{endpoint_id}").status_code == 404
    assert api.ok("{ webhookEndpoints { totalCount } }")["webhookEndpoints"]["totalCount"] == 0


def test_disabling_and_enabling(admin: SettingsClient, api: GraphQLClient) -> None:
    endpoint_id, _ = created(admin)
    query = (
        "query($id: ID!) { node(id: $id) { ... on WebhookEndpoint { enabled disabledReason } } }"
    )

    disabled = act(admin, endpoint_id, "enabled", enabled="false")
    after_disabling = api.ok(query, {"id": endpoint_id})["node"]
    enabled = act(admin, endpoint_id, "enabled", enabled="true")

    assert "The endpoint is disabled" in disabled and "Enable endpoint" in disabled
    assert after_disabling == {"enabled": False, "disabledReason": "manual"}
    assert "The endpoint is enabled" in enabled and "Disable endpoint" in enabled
    assert api.ok(query, {"id": endpoint_id})["node"] == {"enabled": True, "disabledReason": None}


def test_editing_keeps_the_secret(admin: SettingsClient, api: GraphQLClient) -> None:
    endpoint_id, secret = created(admin, description="before")
    path = f"/settings/webhooks/{endpoint_id}/edit"

    form = admin.get(path).text
    saved = admin.submit(
        path,
        path,
        {
            "url": "https://93.184.215.15/other",
            "description": "after",
            "events": "selected",
            "event_types": ["contact.created", "issue.updated"],
            "enabled": "true",
        },
    )
    detail = admin.get(saved.headers["location"]).text
    unsafe = admin.submit(path, path, {"url": "https://10.0.0.1/", "events": "all"})

    assert 'value="before"' in form and 'value="all" id="events-all" checked' in form
    assert saved.status_code == 303
    assert "The endpoint is saved." in detail and "https://93.184.215.15/other" in detail
    assert unsafe.status_code == 400 and "not a public address" in unsafe.text
    node = api.ok(
        "query($id: ID!) { node(id: $id) { ... on WebhookEndpoint { url description"
        " eventTypes secretPrefix } } }",
        {"id": endpoint_id},
    )["node"]
    assert node == {
        "url": "https://93.184.215.15/other",
        "description": "after",
        "eventTypes": ["contact.created", "issue.updated"],
        "secretPrefix": secret[:12],
    }


def test_a_test_event_shows_in_the_recent_deliveries(admin: SettingsClient) -> None:
    # Subscribed to all events, an endpoint would get its own webhook_endpoint.created.
    endpoint_id, _ = created(admin, events="selected", event_types="issue.created")

    empty = admin.get(f"/settings/webhooks/{endpoint_id}").text
    page = act(admin, endpoint_id, "test")

    assert "Nothing has been sent to this endpoint yet" in empty
    assert "A test event is on its way" in page
    [row] = delivery_rows(page)
    assert "webhook.test" in row and "Pending" in row
    assert "Send new test" in row and "Redeliver" not in row  # a test is not in the log


def test_an_event_is_redelivered_with_its_own_id(
    admin: SettingsClient, workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    endpoint_id, _ = created(admin, events="selected", event_types="issue.created")
    new_issue(api)
    page = admin.get(f"/settings/webhooks/{endpoint_id}").text
    [row] = delivery_rows(page)
    event_id = re.search(r'name="event_id" value="(evt_[0-9A-Za-z]+)"', row)
    assert event_id and "issue.created" in row

    again = act(admin, endpoint_id, "redeliver", event_id=event_id.group(1))
    gone = admin.submit(
        f"/settings/webhooks/{endpoint_id}",
        f"/settings/webhooks/{endpoint_id}/redeliver",
        {"event_id": "evt_01JD0000000000000000000000"},
    )

    rows = delivery_rows(again)
    assert "on its way again" in again
    assert len(rows) == 2 and all(event_id.group(1) in row for row in rows)
    assert gone.status_code == 404 and "no longer in the log" in gone.text


def test_replaying_a_range_of_sequences(
    admin: SettingsClient, workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    endpoint_id, _ = created(admin, events="selected", event_types="issue.created")
    start = last_sequence(api)
    new_issue(api)
    new_issue(api, subject="Second")
    end = last_sequence(api)

    page = act(admin, endpoint_id, "replay", from_sequence=str(start + 1), to_sequence=str(end))
    backwards = admin.submit(
        f"/settings/webhooks/{endpoint_id}",
        f"/settings/webhooks/{endpoint_id}/replay",
        {"from_sequence": str(end), "to_sequence": str(start)},
    )

    superscript = admin.submit(
        f"/settings/webhooks/{endpoint_id}",
        f"/settings/webhooks/{endpoint_id}/replay",
        {"from_sequence": "\u00b2", "to_sequence": str(end)},  # a digit int() cannot read
    )

    assert "2 events of sequences" in page
    assert len(delivery_rows(page)) == 4
    assert backwards.status_code == 400 and "Replay 1 to 1000 events" in backwards.text
    assert superscript.status_code == 400 and "Give the first and the last" in superscript.text


def test_rotating_shows_the_new_secret_once(admin: SettingsClient, api: GraphQLClient) -> None:
    endpoint_id, old = created(admin)
    detail = f"/settings/webhooks/{endpoint_id}"
    fields = {**hidden_fields(admin.get(detail).text), "keep_previous": "604800"}

    rotated = admin.post(f"{detail}/rotate", fields)
    again = admin.post(f"{detail}/rotate", fields)

    new = webhook_secret_on(rotated.text)
    assert rotated.status_code == 200 and new and new != old
    assert "Copy this secret now. It is shown only once." in rotated.text
    assert "For the next 7 days" in rotated.text
    assert again.status_code == 409 and webhook_secret_on(again.text) is None
    page = admin.get(detail).text
    assert new not in page and new[:12] in page
    prefix = api.ok(
        "query($id: ID!) { node(id: $id) { ... on WebhookEndpoint { secretPrefix } } }",
        {"id": endpoint_id},
    )["node"]["secretPrefix"]
    assert prefix == new[:12]
    bad = admin.submit(detail, f"{detail}/rotate", {"keep_previous": "31536000"})
    assert bad.status_code == 400 and "Choose how long" in bad.text


# --- The record -----------------------------------------------------------------------------


def test_each_change_records_its_event_with_the_org_admin_as_actor(
    admin: SettingsClient, workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    start = last_sequence(api)
    endpoint_id, secret = created(admin, description="audited")
    act(admin, endpoint_id, "enabled", enabled="false")
    rotated = admin.submit(
        f"/settings/webhooks/{endpoint_id}",
        f"/settings/webhooks/{endpoint_id}/rotate",
        {"keep_previous": "0"},
    )
    new_secret = webhook_secret_on(rotated.text) or ""
    path = f"/settings/webhooks/{endpoint_id}/delete"
    admin.submit(path, path)

    found = events_after(api, start)

    assert [event["type"] for event in found] == [
        "webhook_endpoint.created",
        "webhook_endpoint.updated",
        "webhook_endpoint.updated",
        "webhook_endpoint.deleted",
    ]
    for event in found:
        assert event["actor"] == org_admin(workspace)
        assert event["data"]["webhookEndpoint"]["id"] == endpoint_id
    assert found[1]["data"]["changes"]["enabled"] == {"from": True, "to": False}
    assert found[2]["data"]["changes"]["secretPrefix"]["to"] == new_secret[:12]
    dumped = json.dumps(found)
    assert secret not in dumped and new_secret not in dumped
    audit = api.ok(
        "{ auditEvents(first: 10) { edges { node { action targetId actorType ipAddress } } } }"
    )["auditEvents"]["edges"]
    mine = [edge["node"] for edge in audit if edge["node"]["targetId"] == endpoint_id]
    assert len(mine) == 4
    assert all(e["actorType"] == "org_admin" and e["ipAddress"] == admin.address for e in mine)
    page = admin.get("/settings/audit").text
    assert "Webhook endpoint added" in page and "Webhook endpoint deleted" in page
