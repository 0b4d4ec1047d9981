"""The IMAP door against a real Dovecot over TLS: new mail becomes issues once, across a
restart of the poller and a change of UIDVALIDITY; a refused login or an untrusted
certificate is logged (never the password) and tried again."""

from __future__ import annotations

import logging
import secrets
import time
from email.message import EmailMessage

import pytest
from sqlalchemy import select

from supportdesk.db.tables import mailboxes
from tests.conftest import make_workspace
from tests.dispatch.helpers import eventually
from tests.email.imap.conftest import POLL_SECONDS, ImapAccount, new_account, polling
from tests.email.imap.dovecot import Dovecot
from tests.email.kept import Kept, kept_mail
from tests.graphql.mailboxes.helpers import create_payload, new_mailbox
from tests.servers import RunningServer

IMAP_LOG = "supportdesk.imap"
ISSUE_COUNT = "query { issues(first: 50) { totalCount edges { node { subject } } } }"


def mail(account: ImapAccount, subject: str) -> bytes:
    message = EmailMessage()
    message["From"] = f"Customer <customer-{secrets.token_hex(3)}@example.org>"
    message["To"] = account.mailbox.address
    message["Subject"] = subject
    message["Message-ID"] = f"<{secrets.token_hex(8)}@example.org>"
    message.set_content(f"{subject}: the printer is on fire.")
    return message.as_bytes()


def kept_count(account: ImapAccount, count: int) -> list[Kept]:
    kept = eventually(
        lambda: found if len(found := kept_mail(account.mailbox)) >= count else None,
        what=f"{count} messages kept",
    )
    assert len(kept) == count, kept
    return kept


def subjects(account: ImapAccount) -> list[str]:
    data = account.mailbox.workspace.client().ok(ISSUE_COUNT)["issues"]
    found = sorted(edge["node"]["subject"] for edge in data["edges"])
    assert data["totalCount"] == len(found)
    return found


def quiet_polls(count: int = 5) -> None:
    """Let the poller look a few more times: what should not happen has had its chance."""
    time.sleep(POLL_SECONDS * count + 0.3)


def taken_logs(caplog: pytest.LogCaptureFixture, account: ImapAccount) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == IMAP_LOG and account.mailbox.id in record.getMessage()
        and " new (" in record.getMessage()
    ]  # fmt: skip


def test_new_mail_becomes_issues_once(
    imap_server: RunningServer, dovecot: Dovecot, accounts: list[ImapAccount]
) -> None:
    account = new_account(imap_server, dovecot)
    accounts.append(account)
    account.append(mail(account, "First"))
    account.append(mail(account, "Second"))
    with polling(imap_server):
        kept = kept_count(account, 2)
        account.append(mail(account, "Third"))
        kept = kept_count(account, 3)
        quiet_polls()
        assert len(kept_mail(account.mailbox)) == 3
    assert {row.status for row in kept} == {"created"}
    assert subjects(account) == ["First", "Second", "Third"]
    # Examined read-only and fetched with BODY.PEEK: the customer's mailbox is untouched.
    assert account.seen_flags() == []


def test_a_restarted_poller_takes_only_what_is_new(
    imap_server: RunningServer,
    dovecot: Dovecot,
    accounts: list[ImapAccount],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, IMAP_LOG)
    account = new_account(imap_server, dovecot)
    accounts.append(account)
    account.append(mail(account, "Before"))
    account.append(mail(account, "Also before"))
    with polling(imap_server):
        kept_count(account, 2)
    assert "2 new (UIDVALIDITY" in taken_logs(caplog, account)[-1]
    caplog.clear()
    account.append(mail(account, "While stopped"))
    with polling(imap_server):
        kept_count(account, 3)
        quiet_polls()
    taken = taken_logs(caplog, account)
    # The checkpoint held: only UID 3 was fetched, once.
    assert len(taken) == 1 and taken[0].endswith("after UID 2)"), taken
    assert subjects(account) == ["Also before", "Before", "While stopped"]


def lease_of(account: ImapAccount) -> object:
    """Until when a dispatcher holds the mailbox's polling (None: nobody)."""
    server = account.mailbox.workspace.server
    query = select(mailboxes.c.imap_lease_until).where(
        mailboxes.c.workspace_id == account.mailbox.workspace.id,
        mailboxes.c.id == account.mailbox.id,
    )

    async def read() -> object:
        async with server.db.read() as connection:
            [row] = list(await connection.execute(query))
            return row[0]

    return server.call(read())


def test_a_stopped_poller_gives_its_lease_back_whenever_it_stops(
    imap_server: RunningServer, dovecot: Dovecot, accounts: list[ImapAccount]
) -> None:
    """Else the next dispatcher waits out the lease (minutes) before it polls the mailbox."""
    account = new_account(imap_server, dovecot)
    accounts.append(account)
    account.append(mail(account, "One"))
    with polling(imap_server):
        kept_count(account, 1)
    for n in range(30):
        with polling(imap_server):
            time.sleep(POLL_SECONDS * (n % 10) / 4)  # stopped at a different moment each time
        assert lease_of(account) is None, f"stop {n} left the lease taken"


def test_a_new_uidvalidity_reads_the_folder_again_filing_each_message_once(
    imap_server: RunningServer,
    dovecot: Dovecot,
    accounts: list[ImapAccount],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, IMAP_LOG)
    account = new_account(imap_server, dovecot)
    accounts.append(account)
    first, second = mail(account, "One"), mail(account, "Two")
    account.append(first)
    account.append(second)
    with polling(imap_server):
        kept_count(account, 2)
    # The server forgets its UIDs: the same two messages and a new one, UIDs 1 to 3.
    account.recreate_folder()
    account.append(first)
    account.append(second)
    account.append(mail(account, "Three"))
    with polling(imap_server):
        kept_count(account, 3)
        quiet_polls()
    taken = taken_logs(caplog, account)
    assert len(taken) == 2, taken
    before, after = (line.split("UIDVALIDITY ")[1].split(",")[0] for line in taken)
    assert before != after
    assert taken[0].endswith(f": 2 new (UIDVALIDITY {before}, after UID 0)")
    # Read from the beginning: all three fetched, the two known ones not filed again.
    assert taken[1].endswith(f": 3 new (UIDVALIDITY {after}, after UID 0)")
    assert len(kept_mail(account.mailbox)) == 3
    assert subjects(account) == ["One", "Three", "Two"]


def test_two_dispatchers_take_turns_on_a_mailbox(
    imap_server: RunningServer,
    dovecot: Dovecot,
    accounts: list[ImapAccount],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, IMAP_LOG)
    account = new_account(imap_server, dovecot)
    accounts.append(account)
    for number in range(12):
        account.append(mail(account, f"Message {number}"))
    with polling(imap_server), polling(imap_server):
        kept_count(account, 12)
        account.append(mail(account, "Later"))
        kept_count(account, 13)
        quiet_polls()
    # The lease let one poller at a time fetch: no message was fetched twice.
    fetched = sum(int(line.split(": ")[1].split(" new")[0]) for line in taken_logs(caplog, account))
    assert fetched == 13, taken_logs(caplog, account)
    assert len(subjects(account)) == 13


def test_starttls_on_the_plain_port(
    imap_server: RunningServer, dovecot: Dovecot, accounts: list[ImapAccount]
) -> None:
    account = new_account(imap_server, dovecot, starttls=True)
    accounts.append(account)
    account.append(mail(account, "Over STARTTLS"))
    with polling(imap_server):
        kept_count(account, 1)
    assert subjects(account) == ["Over STARTTLS"]


def test_a_refused_login_is_logged_without_the_password_and_tried_again(
    imap_server: RunningServer,
    dovecot: Dovecot,
    accounts: list[ImapAccount],
    caplog: pytest.LogCaptureFixture,
) -> None:
    wrong = f"Wr0ng@{secrets.token_hex(6)}"
    refused = new_account(imap_server, dovecot, url_password=wrong)
    working = new_account(imap_server, dovecot)
    accounts.extend([refused, working])
    refused.append(mail(refused, "Never read"))
    working.append(mail(working, "Read anyway"))
    with polling(imap_server):
        eventually(
            lambda: [r for r in caplog.records if "failure 2;" in r.getMessage()
                     and refused.mailbox.id in r.getMessage()],
            what="a second failed login",
        )  # fmt: skip
        kept_count(working, 1)
    said = [record.getMessage() for record in caplog.records if record.name == IMAP_LOG]
    failures = [line for line in said if refused.mailbox.id in line]
    assert all("login refused: [AUTHENTICATIONFAILED]" in line for line in failures), failures
    everything = caplog.text + "".join(str(record.args) for record in caplog.records)
    assert wrong not in everything and working.password not in everything
    assert kept_mail(refused.mailbox) == []


def test_an_untrusted_certificate_is_a_logged_tls_failure(
    imap_server: RunningServer,
    dovecot: Dovecot,
    accounts: list[ImapAccount],
    caplog: pytest.LogCaptureFixture,
) -> None:
    account = new_account(imap_server, dovecot)
    accounts.append(account)
    account.append(mail(account, "Not over a TLS we cannot check"))
    with polling(imap_server, imap_ca_file=None):
        eventually(
            lambda: [r for r in caplog.records if account.mailbox.id in r.getMessage()
                     and "TLS failed" in r.getMessage() and "failure 2;" in r.getMessage()],
            what="two TLS failures",
        )  # fmt: skip
    assert kept_mail(account.mailbox) == []
    assert account.password not in caplog.text


def test_imap_urls_take_starttls_and_show_no_password(
    imap_server: RunningServer, dovecot: Dovecot, accounts: list[ImapAccount]
) -> None:
    account = new_account(imap_server, dovecot, starttls=True)
    accounts.append(account)
    api = account.mailbox.workspace.client()
    shown = api.ok("query { mailboxes(first: 5) { edges { node { imapUrl } } } }")
    url = shown["mailboxes"]["edges"][0]["node"]["imapUrl"]
    assert url.endswith("/Support?starttls=true") and ":***@" in url
    assert account.password not in url
    for bad in ("imaps://u:p@host/INBOX?starttls=true", "imap://u:p@host/INBOX?verify=no"):
        payload = create_payload(api, imapUrl=bad)
        assert payload["error"]["fields"] == [{"field": "imapUrl", "code": "INVALID"}], bad


def test_a_private_or_link_local_imap_server_is_not_polled(
    imap_server: RunningServer,
    dovecot: Dovecot,
    accounts: list[ImapAccount],
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The tests' Dovecot is on 127.0.0.1: without the deployment's leave, a workspace's
    # mailbox may not make the server connect there, nor to a metadata address ever.
    account = new_account(imap_server, dovecot)
    accounts.append(account)
    account.append(mail(account, "Never read"))
    api = make_workspace(imap_server).client()
    metadata = new_mailbox(api, imapUrl="imaps://u:p@169.254.169.254/INBOX")["mailbox"]["id"]

    try:
        _poll_both(imap_server, account, metadata, caplog)
    finally:
        api.ok("mutation($id: ID!) { deleteMailbox(id: $id) { error { code } } }", {"id": metadata})

    said = [r.getMessage() for r in caplog.records if r.name == IMAP_LOG]
    refused = [line for line in said if account.mailbox.id in line and "failure" in line]
    assert refused and all(
        "not polled: the IMAP server is not a public address" in line for line in refused
    )
    assert any(
        metadata in line and "the IMAP server is a link-local address" in line for line in said
    )
    assert subjects(account) == ["Never read"]


def _poll_both(
    imap_server: RunningServer,
    account: ImapAccount,
    metadata: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with polling(imap_server, imap_allow_private=False):
        eventually(
            lambda: [r for r in caplog.records if account.mailbox.id in r.getMessage()
                     and "failure 2;" in r.getMessage()],
            what="two refusals",
        )  # fmt: skip
    with polling(imap_server):  # private addresses allowed, link-local still not
        eventually(
            lambda: [r for r in caplog.records if metadata in r.getMessage()
                     and "failure 1;" in r.getMessage()],
            what="a refusal",
        )  # fmt: skip
        kept_count(account, 1)
