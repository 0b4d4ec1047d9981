"""Settings → Email over HTTP: mailboxes made with their inbound token shown once, bad
input explained on the form, editing (the IMAP password written, never shown back),
rotating the token, deleting after confirming, and the events and audit entries each
change records with the org admin as actor, as the GraphQL mutations record them."""

from __future__ import annotations

import html
import json
import logging
import re
import secrets
import smtplib
import socket
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest
from sqlalchemy import select, update

from supportdesk.auth.server_key import ServerKey
from supportdesk.db.tables import mailboxes
from tests.client import GraphQLClient
from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture, make_workspace
from tests.email.doors import post_mail
from tests.graphql.events.helpers import events_after, last_sequence
from tests.graphql.mailboxes.helpers import LIST, new_mailbox, unique_address
from tests.servers import RunningServer
from tests.web.settings_client import SettingsClient, hidden_fields

_TOKEN = re.compile(r'id="secret"[^>]*>(mbt_[A-Za-z0-9_-]+)<')
_MAILBOX_LINK = re.compile(r'href="/settings/email/(mbx_[0-9A-Za-z]+)"')
PASSWORD = "Pa55:w/rd@imap-" + secrets.token_hex(4)
IMAP = "imaps://help%40example.com@imap.example.com/INBOX"


def token_on(page: str) -> str | None:
    found = _TOKEN.search(page)
    return found.group(1) if found else None


def mailbox_id_on(page: str) -> str:
    found = _MAILBOX_LINK.search(page)
    assert found, page[:500]
    return found.group(1)


def mail(address: str, subject: str = "Printer on fire") -> bytes:
    return (
        f"From: Alice <alice@customer.test>\r\nTo: {address}\r\nSubject: {subject}\r\n"
        f"Message-ID: <{secrets.token_hex(8)}@customer.test>\r\n\r\nIt is on fire.\r\n"
    ).encode()


@pytest.fixture
def admin(workspace: WorkspaceFixture) -> SettingsClient:
    return SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )


def create(admin: SettingsClient, **fields: object) -> tuple[int, str]:
    form: dict[str, object] = {"address": unique_address(), **fields}
    answer = admin.submit("/settings/email/new", "/settings/email", form)
    return answer.status_code, answer.text


def created(admin: SettingsClient, **fields: object) -> tuple[str, str]:
    """A new mailbox's id and inbound token, made on the page."""
    status, page = create(admin, **fields)
    token = token_on(page)
    assert status == 200 and token, page[:500]
    return mailbox_id_on(page), token


def listed(api: GraphQLClient) -> list[dict[str, object]]:
    return [edge["node"] for edge in api.ok(LIST)["mailboxes"]["edges"]]


def mailbox_count(admin: SettingsClient) -> int:
    return admin.get("/settings/email").text.count("data-mailbox-id=")


def sealed_url(workspace: WorkspaceFixture, mailbox_id: str) -> str | None:
    async def read() -> str | None:
        async with workspace.server.db.read() as connection:
            query = select(mailboxes.c.imap_url_sealed).where(
                mailboxes.c.workspace_id == workspace.id, mailboxes.c.id == mailbox_id
            )
            return await connection.scalar(query)

    return workspace.server.call(read())


def opened_url(workspace: WorkspaceFixture, mailbox_id: str) -> str:
    """The IMAP URL as the dispatcher will open it, password included."""
    sealed = sealed_url(workspace, mailbox_id)
    server = workspace.server
    box = server.call(ServerKey(server.settings.secret_key, server.db).secret_box())
    assert sealed is not None and box is not None
    return box.open(sealed)


def set_imap_progress(workspace: WorkspaceFixture, mailbox_id: str, **values: object) -> None:
    """As the dispatcher records its polling (imap/checkpoints.py)."""

    async def write() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.execute(
                update(mailboxes)
                .where(mailboxes.c.workspace_id == workspace.id, mailboxes.c.id == mailbox_id)
                .values(**values)
            )

    workspace.server.call(write())


def org_admin(workspace: WorkspaceFixture) -> dict[str, str]:
    return {"type": "org_admin", "id": workspace.made.admin.id, "name": workspace.admin_email}


# --- Creating ------------------------------------------------------------------------------


def test_a_new_mailbox_s_token_is_shown_once_and_works(
    admin: SettingsClient, workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    address = unique_address()
    fields = {
        **hidden_fields(admin.get("/settings/email/new").text),
        "address": address.upper(),
        "name": "Acme Support",
        "acknowledge": "true",
    }

    first = admin.post("/settings/email", fields)
    again = admin.post("/settings/email", fields)  # a reload sends the form again

    token = token_on(first.text)
    assert first.status_code == 200 and token, first.text[:500]
    assert "Copy this token now. It is shown only once." in first.text
    assert f"{workspace.server.base_url}/v1/inbound-email" in first.text
    assert "Content-Type: message/rfc822" in first.text
    assert first.headers["cache-control"] == "no-store" and "location" not in first.headers
    assert token not in admin.http.cookies.get("supportdesk_session", "")
    assert again.status_code == 409 and "already sent" in again.text
    assert token not in again.text
    mailbox_id = mailbox_id_on(first.text)
    for path in ("/settings/email", f"/settings/email/{mailbox_id}", "/settings/audit"):
        page = admin.get(path).text
        assert token not in page and token[12:] not in page
    listing = admin.get("/settings/email").text
    assert listing.count("data-mailbox-id=") == 1
    assert address in listing and "Acme Support" in listing and "None yet" in listing
    assert "This server runs no SMTP listener" in listing
    assert "No mail server is set for replies" in listing
    assert listed(api) == [
        {
            "id": mailbox_id,
            "address": address,
            "name": "Acme Support",
            "acknowledge": True,
            "imapUrl": None,
            "tokenPrefix": token[:12],
            "createdAt": listed(api)[0]["createdAt"],
            "updatedAt": listed(api)[0]["updatedAt"],
        }
    ]
    answer = post_mail(workspace.server, token, mail(address))
    assert answer.status_code == 202 and answer.json()["status"] == "created"
    listing = admin.get("/settings/email").text
    assert "by HTTP POST · 1 in all" in listing


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"address": "  "}, "address", "Enter the address customers write to."),
        ({"address": "not-an-address"}, "address", "Enter an e-mail address"),
        ({"address": "a@b"}, "address", "Enter an e-mail address"),
        ({"address": "support+x@acme.example"}, "address", "has no + part"),
        ({"name": "n" * 201}, "name", "200 characters or fewer"),
        ({"imap_url": "https://imap.example.com/"}, "imap_url", "An IMAP URL reads"),
        ({"imap_url": "imaps://imap.example.com/INBOX"}, "imap_url", "An IMAP URL reads"),
        ({"imap_url": IMAP}, "imap_password", "Enter the password"),
    ],
)
def test_bad_input_is_explained_and_makes_nothing(
    admin: SettingsClient, fields: dict[str, object], field: str, message: str
) -> None:
    password = {} if field == "imap_password" else {"imap_password": PASSWORD}
    status, page = create(admin, **password, **fields)

    assert status == 400
    assert message in html.unescape(page)
    assert f'id="{field}-error"' in page
    assert 'name="submission_token"' in page
    assert PASSWORD not in page and token_on(page) is None
    if password:
        assert "Type the password again: the page never sends it back." in page
    assert mailbox_count(admin) == 0


def test_an_address_taken_here_or_elsewhere_is_refused(
    admin: SettingsClient, other_workspace: WorkspaceFixture
) -> None:
    mine = unique_address()
    created(admin, address=mine)
    theirs = new_mailbox(other_workspace.client())["mailbox"]["address"]

    for taken in (f" {mine.upper()} ", theirs.upper()):
        status, page = create(admin, address=taken, name="Second")
        assert status == 400, page[:500]
        assert "This address belongs to a mailbox already." in page
        assert 'value="Second"' in page and token_on(page) is None
    # Another address on their domain is theirs to add, not ours.
    status, page = create(admin, address=theirs.replace("support@", "sales@"), name="Third")
    assert status == 400, page[:500]
    assert "Another workspace on this server has the mail domain" in page
    assert mailbox_count(admin) == 1


@pytest.fixture
def keyless_server(server: RunningServer) -> Iterator[RunningServer]:
    """A PostgreSQL deployment without SUPPORTDESK_SECRET_KEY: it cannot seal a password."""
    if server.backend != "postgresql":
        pytest.skip("SQLite keeps a key file beside the database: always configured")
    running = RunningServer(server.backend, server.database_url).start()
    yield running
    running.stop()


def test_without_a_server_key_imap_names_the_setting(keyless_server: RunningServer) -> None:
    workspace = make_workspace(keyless_server)
    admin = SettingsClient(keyless_server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )

    status, page = create(admin, imap_url=IMAP, imap_password=PASSWORD)
    plain = created(admin)

    assert status == 503
    assert "SUPPORTDESK_SECRET_KEY" in page and 'class="alert error"' in page
    assert PASSWORD not in page
    assert plain[1].startswith("mbt_") and mailbox_count(admin) == 1


def test_a_password_typed_into_the_url_is_taken_and_never_shown(
    admin: SettingsClient, api: GraphQLClient
) -> None:
    with_password = IMAP.replace("@imap", f":{quote(PASSWORD, safe='')}@imap")

    status, page = create(admin, address="", imap_url=with_password)
    mailbox_id, _ = created(admin, imap_url=with_password)

    assert status == 400 and "Enter the address" in page
    assert f'value="{IMAP}"' in page and "Type the password again" in page
    assert PASSWORD not in html.unescape(page) and "%3Aw%2Frd" not in page
    detail = admin.get(f"/settings/email/{mailbox_id}").text
    assert "imaps://help%40example.com:***@imap.example.com/INBOX" in detail
    assert listed(api)[0]["imapUrl"] == "imaps://help%40example.com:***@imap.example.com/INBOX"


@pytest.fixture
def listening_server(server: RunningServer) -> Iterator[RunningServer]:
    """A server whose workers take mail over SMTP too, as `serve --smtp-port` starts them."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    running = RunningServer(
        server.backend, server.database_url, smtp_listen=f"127.0.0.1:{port}"
    ).start()
    yield running
    running.stop()


def test_the_smtp_listener_and_the_mail_it_took_are_shown(
    listening_server: RunningServer,
) -> None:
    workspace = make_workspace(listening_server)
    admin = SettingsClient(listening_server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )
    mailbox_id, _ = created(admin)
    address = str(listed(workspace.client())[0]["address"])
    listen = str(listening_server.settings.smtp_listen)

    host, port = listen.split(":")
    with smtplib.SMTP(host, int(port), timeout=30) as client:
        client.sendmail("alice@customer.test", [address], mail(address))
    listing = admin.get("/settings/email").text
    detail = admin.get(f"/settings/email/{mailbox_id}").text

    assert ">SMTP</span>" in listing and "runs no SMTP listener" not in listing
    assert "by SMTP listener · 1 in all" in listing
    assert f"on <code>{listen}</code>" in detail and "Listening" in detail
    smtp_row = re.search(r'<tr data-door="smtp">.*?</tr>', detail, re.S)
    assert smtp_row and "1 message" in smtp_row.group(0)


@pytest.mark.parametrize(
    ("smtp_url", "shown"),
    [
        (
            "smtp://mailer:s3cret-pw@relay.example.com:587?starttls=true",
            "Replies go out by mail through <code>smtp://mailer:***@relay.example.com:587</code>.",
        ),
        ("https://relay.example.com", "Replies are not sent: SUPPORTDESK_SMTP_URL must be"),
    ],
)
def test_where_replies_leave_is_shown_without_the_password(
    server: RunningServer, smtp_url: str, shown: str
) -> None:
    sending = RunningServer(server.backend, server.database_url, smtp_url=smtp_url).start()
    try:
        workspace = make_workspace(sending)
        admin = SettingsClient(sending.base_url).logged_in(
            workspace.admin_email, workspace.admin_password
        )
        created(admin)
        listing = admin.get("/settings/email").text
    finally:
        sending.stop()

    assert shown in listing
    assert "s3cret-pw" not in listing and "No mail server is set" not in listing


# --- Who may ------------------------------------------------------------------------------


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(
    admin: SettingsClient,
) -> None:
    mailbox_id, _ = created(admin, name="Before")
    base = f"/settings/email/{mailbox_id}"
    posts = [
        ("/settings/email", {"address": unique_address()}),
        (f"{base}/edit", {"address": unique_address(), "name": "forged"}),
        (f"{base}/rotate", {}),
        (f"{base}/delete", {}),
    ]
    before = admin.get(base).text

    for path, fields in posts:
        answer = admin.post(path, fields)
        assert answer.status_code == 403, path
        assert "Form expired" in answer.text
        assert admin.post(path, {**fields, "csrf_token": "x" * 43}).status_code == 403

    strip = re.compile(r'name="submission_token" value="[^"]*"')
    assert strip.sub("", admin.get(base).text) == strip.sub("", before)
    assert mailbox_count(admin) == 1


def test_a_person_who_is_not_an_org_admin_is_refused(workspace: WorkspaceFixture) -> None:
    mailbox_id = new_mailbox(workspace.client())["mailbox"]["id"]
    agent = SettingsClient(workspace.server.base_url)
    assert agent.login(workspace.add_person("agent"), ADMIN_PASSWORD).status_code == 303
    token = hidden_fields(agent.get("/inbox/").text).get("csrf_token", "")

    for path in ("/settings/email", "/settings/email/new", f"/settings/email/{mailbox_id}"):
        assert agent.get(path).status_code == 403
    deleting = agent.post(f"/settings/email/{mailbox_id}/delete", {"csrf_token": token})
    assert deleting.status_code == 403
    assert len(listed(workspace.client())) == 1


def test_another_workspace_s_mailbox_is_not_found(
    admin: SettingsClient, other_workspace: WorkspaceFixture
) -> None:
    theirs = new_mailbox(other_workspace.client(), name="Theirs")["mailbox"]
    token = admin.csrf_token()

    for path in ("", "/edit", "/delete"):
        answer = admin.get(f"/settings/email/{theirs['id']}{path}")
        assert answer.status_code == 404 and "Mailbox not found" in answer.text
        assert theirs["address"] not in answer.text
    for path in ("/delete", "/rotate", "/edit"):
        answer = admin.post(
            f"/settings/email/{theirs['id']}{path}",
            {"csrf_token": token, "address": unique_address(), "submission_token": "x"},
        )
        assert answer.status_code == 404, path
    assert admin.get("/settings/email/not-an-id").status_code == 404
    assert admin.post("/settings/email/not-an-id/delete", {"csrf_token": token}).status_code == 404
    assert listed(other_workspace.client()) == [theirs]


# --- One mailbox ----------------------------------------------------------------------------


def test_editing_writes_the_imap_password_and_never_shows_it(
    admin: SettingsClient, workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    mailbox_id, token = created(admin, name="Before")
    path = f"/settings/email/{mailbox_id}/edit"
    address = unique_address("help")

    saved = admin.submit(
        path,
        path,
        {
            "address": address,
            "name": "After",
            "acknowledge": "true",
            "imap_url": IMAP,
            "imap_password": PASSWORD,
        },
    )
    detail = admin.get(saved.headers["location"]).text
    form = admin.get(path).text
    sealed = sealed_url(workspace, mailbox_id)
    kept = admin.submit(
        path, path, {"address": address, "name": "After", "acknowledge": "true", "imap_url": IMAP}
    )
    retype = admin.submit(
        path, path, {"address": address, "imap_url": IMAP.replace("INBOX", "Support")}
    )

    assert saved.status_code == 303
    assert "The mailbox is saved." in detail
    assert "imaps://help%40example.com:***@imap.example.com/INBOX" in detail
    assert "Nothing taken yet" in detail
    assert f'value="{IMAP}"' in form and 'name="imap_password" type="password"' in form
    assert (
        'id="imap_password" name="imap_password" type="password" maxlength="1024" value=""' in form
    )
    assert "Leave it empty to keep the current one." in form
    for page in (
        detail,
        form,
        admin.get("/settings/email").text,
        admin.get("/settings/audit").text,
    ):
        assert PASSWORD not in page and PASSWORD.replace(":", "%3A") not in page
    assert kept.status_code == 303 and sealed_url(workspace, mailbox_id) == sealed
    with_password = IMAP.replace("@imap", f":{quote(PASSWORD, safe='')}@imap")
    assert opened_url(workspace, mailbox_id) == with_password
    assert retype.status_code == 400 and "Type the password again" in retype.text
    [node] = listed(api)
    assert node["address"] == address and node["name"] == "After" and node["acknowledge"]
    assert node["imapUrl"] == "imaps://help%40example.com:***@imap.example.com/INBOX"
    assert node["tokenPrefix"] == token[:12]

    removed = admin.submit(path, path, {"address": address, "name": "After", "imap_url": ""})
    assert removed.status_code == 303
    assert listed(api)[0]["imapUrl"] is None and listed(api)[0]["acknowledge"] is False


def test_the_recorded_imap_polling_is_shown(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    mailbox_id, _ = created(admin, imap_url=IMAP, imap_password=PASSWORD)
    shown = "imaps://help%40example.com:***@imap.example.com/INBOX"
    detail = f"/settings/email/{mailbox_id}"

    waiting = admin.get(detail).text
    set_imap_progress(
        workspace, mailbox_id, imap_checkpoint_of=shown, imap_uid_validity=3, imap_last_uid=41
    )
    polled = admin.get("/settings/email").text
    set_imap_progress(
        workspace, mailbox_id, imap_lease_until=datetime.now(UTC) + timedelta(minutes=1)
    )
    polling = admin.get(detail).text
    set_imap_progress(workspace, mailbox_id, imap_checkpoint_of="imaps://old@host/INBOX")
    set_imap_progress(workspace, mailbox_id, imap_lease_until=None)
    moved = admin.get(detail).text

    assert "Nothing taken yet" in waiting
    assert "Polled" in polled and "mail up to UID 41 taken" in polled
    assert "Polling now" in polling
    assert "Nothing taken yet" in moved  # a checkpoint of another URL is none


def test_an_edit_to_a_taken_address_or_bad_input_changes_nothing(
    admin: SettingsClient, api: GraphQLClient
) -> None:
    first, _ = created(admin, name="First")
    created(admin, name="Second")
    taken = next(n["address"] for n in listed(api) if n["name"] == "Second")
    path = f"/settings/email/{first}/edit"
    before = listed(api)

    duplicate = admin.submit(path, path, {"address": taken, "name": "Renamed"})
    empty = admin.submit(path, path, {"address": "", "name": "Renamed", "imap_password": PASSWORD})

    assert duplicate.status_code == 400 and "belongs to a mailbox already" in duplicate.text
    assert empty.status_code == 400 and "Enter the address" in empty.text
    assert PASSWORD not in empty.text
    assert listed(api) == before


def test_rotating_shows_the_new_token_once_and_the_old_one_stops(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    mailbox_id, old = created(admin)
    detail = f"/settings/email/{mailbox_id}"
    address = listed(workspace.client())[0]["address"]
    fields = hidden_fields(admin.get(detail).text)

    rotated = admin.post(f"{detail}/rotate", fields)
    again = admin.post(f"{detail}/rotate", fields)

    new = token_on(rotated.text)
    assert rotated.status_code == 200 and new and new != old
    assert "It is shown only once." in rotated.text and "no longer works" in rotated.text
    assert again.status_code == 409 and token_on(again.text) is None
    page = admin.get(detail).text
    assert new not in page and new[:12] in page and old[:12] not in page
    assert post_mail(workspace.server, old, mail(str(address))).status_code == 401
    assert post_mail(workspace.server, new, mail(str(address))).status_code == 202
    assert '1 message<span class="meta">the latest' in admin.get(detail).text


def test_deleting_needs_a_confirmation(
    admin: SettingsClient, workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    mailbox_id, token = created(admin)
    address = str(listed(api)[0]["address"])
    path = f"/settings/email/{mailbox_id}/delete"

    detail = admin.get(f"/settings/email/{mailbox_id}").text
    confirm = admin.get(path)
    still_there = mailbox_count(admin)
    deleted = admin.submit(path, path)

    assert f'href="{path}"' in detail and f'action="{path}"' not in detail
    assert confirm.status_code == 200 and "Delete this mailbox?" in confirm.text
    assert still_there == 1
    assert deleted.status_code == 303 and deleted.headers["location"] == "/settings/email"
    listing = admin.get("/settings/email").text
    assert f"The mailbox {address} is deleted." in listing and "No mailboxes yet" in listing
    assert admin.get(f"/settings/email/{mailbox_id}").status_code == 404
    assert listed(api) == []
    assert post_mail(workspace.server, token, mail(address)).status_code == 401


# --- The record -----------------------------------------------------------------------------


def test_each_change_records_its_event_and_audit_entry_and_no_secret(
    admin: SettingsClient,
    workspace: WorkspaceFixture,
    api: GraphQLClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    start = last_sequence(api)
    mailbox_id, token = created(admin, name="Audited", imap_url=IMAP, imap_password=PASSWORD)
    detail = f"/settings/email/{mailbox_id}"
    rotated = token_on(admin.submit(detail, f"{detail}/rotate").text) or ""
    address = str(listed(api)[0]["address"])
    admin.submit(f"{detail}/edit", f"{detail}/edit", {"address": address, "name": "Renamed"})
    admin.submit(f"{detail}/delete", f"{detail}/delete")

    found = events_after(api, start)

    assert [event["type"] for event in found] == [
        "mailbox.created",
        "mailbox.updated",
        "mailbox.updated",
        "mailbox.deleted",
    ]
    for event in found:
        assert event["actor"] == org_admin(workspace)
        assert event["data"]["mailbox"]["id"] == mailbox_id
    assert found[1]["data"]["changes"]["tokenPrefix"]["to"] == rotated[:12]
    assert found[2]["data"]["changes"]["name"] == {"from": "Audited", "to": "Renamed"}
    audit = api.ok(
        "{ auditEvents(first: 10) { edges { node { action targetId actorType ipAddress } } } }"
    )["auditEvents"]["edges"]
    mine = [edge["node"] for edge in audit if edge["node"]["targetId"] == mailbox_id]
    assert len(mine) == 4
    assert all(e["actorType"] == "org_admin" and e["ipAddress"] == admin.address for e in mine)
    page = admin.get("/settings/audit").text
    assert "Mailbox added" in page and "Mailbox deleted" in page and address in page
    served = [r for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    logs = "".join(r.getMessage() + str(r.__dict__) for r in served)
    assert served  # the server's records were captured
    for secret in (token, rotated, PASSWORD):
        assert secret not in json.dumps(found) and secret not in page and secret not in logs


# --- Parked mail ----------------------------------------------------------------------------

_PARKED_LINK = re.compile(r'href="(/settings/email/mbx_\w+/parked/(inm_\w+)\.eml)"')


def test_parked_mail_is_listed_with_its_reason_and_downloads_as_it_came(
    admin: SettingsClient, workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    mailbox_id, token = created(admin)
    unreadable = b"garbage, not mail \xff\r\n"
    filed = post_mail(workspace.server, token, mail("someone@example.com"))
    parked = post_mail(workspace.server, token, unreadable)

    page = admin.get(f"/settings/email/{mailbox_id}").text
    [(link, parked_id)] = _PARKED_LINK.findall(page)
    download = admin.get(link)
    theirs_admin = SettingsClient(other_workspace.server.base_url).logged_in(
        other_workspace.admin_email, other_workspace.admin_password
    )
    agent = SettingsClient(workspace.server.base_url)
    agent.login(workspace.add_person("agent"), ADMIN_PASSWORD)

    assert filed.json()["status"] == "created" and parked.json()["status"] == "parked"
    assert parked_id == parked.json()["id"]
    assert parked.json()["reason"] in page.split('id="parked"')[1]
    assert download.status_code == 200
    assert download.content == unreadable
    assert download.headers["content-type"] == "message/rfc822"
    assert download.headers["content-disposition"].startswith("attachment;")
    assert download.headers["x-content-type-options"] == "nosniff"
    assert theirs_admin.get(link).status_code == 404
    assert agent.get(link).status_code == 403
    filed_link = link.replace(parked_id, filed.json()["id"])
    assert admin.get(filed_link).status_code == 404  # filed mail is the issue's, not here


def test_a_mailbox_without_parked_mail_says_so(admin: SettingsClient) -> None:
    mailbox_id, _ = created(admin)

    page = admin.get(f"/settings/email/{mailbox_id}").text

    assert "None: every message this mailbox took was filed." in page
