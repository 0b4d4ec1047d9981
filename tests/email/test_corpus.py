"""The corpus (tests/email/corpus): realistic mail of the common clients, each with what it
must become (its sidecar .json), sent through both public doors on both backends."""

from __future__ import annotations

import json
from email.utils import parseaddr
from pathlib import Path
from typing import Any

import pytest

from supportdesk.domain.issues.queries import fetch_issues
from supportdesk.domain.mailboxes import get_mailboxes
from tests.email.conftest import MailboxFixture
from tests.email.doors import addressed, post_mail, smtp_send
from tests.email.kept import Kept, kept_mail

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(path.stem for path in CORPUS.glob("*.eml"))
DOORS = ["smtp", "http"]

THREADS = """
{
  issues(first: 10) {
    totalCount
    edges { node {
      id ticketNumber subject status
      requester { email name }
      messages(first: 20) { edges { node {
        id body senderName channel visibility
        author { ... on Contact { email } }
        email { status messageId originalText }
        attachments { fileName contentType sizeBytes }
      } } }
    } }
  }
}
"""
UPDATE = """
mutation($input: UpdateIssueInput!) { updateIssue(input: $input) { error { code } } }
"""


def sidecar(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((CORPUS / f"{name}.json").read_text())
    return found


def raw_of(name: str, mailbox: MailboxFixture) -> bytes:
    return addressed((CORPUS / f"{name}.eml").read_bytes(), mailbox)


def _envelope(raw: bytes) -> tuple[str, list[str]]:
    head = raw.split(b"\n\n", 1)[0].decode("latin-1")
    sender = ""
    recipients = []
    for line in head.splitlines():
        name, _, value = line.partition(":")
        if name.lower() == "return-path" and value.strip() == "<>":
            return "", recipients or []
        if name.lower() == "from":
            sender = parseaddr(value)[1]
        if name.lower() == "to":
            recipients.append(parseaddr(value)[1])
    return sender, recipients


def deliver(
    door: str, mailbox: MailboxFixture, raw: bytes, smtp_port: int, recipient: str | None = None
) -> Kept | None:
    """Send through a door; the kept row it made, or None when it made none (a duplicate)."""
    before = len(kept_mail(mailbox))
    if door == "http":
        answer = post_mail(mailbox.workspace.server, mailbox.token, raw)
        assert answer.status_code in (200, 202), answer.text
    else:
        sender, _ = _envelope(raw)
        # On the wire every line ends in CRLF (smtplib sends bytes as they are).
        wire = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        refused = smtp_send(smtp_port, sender, [recipient or mailbox.address], wire)
        assert refused == {}
    kept = kept_mail(mailbox)
    return kept[-1] if len(kept) > before else None


def threads(mailbox: MailboxFixture) -> list[dict[str, Any]]:
    found = mailbox.workspace.client().ok(THREADS)["issues"]
    return [edge["node"] for edge in found["edges"]]


def message_of(issues: list[dict[str, Any]], message_id: str) -> tuple[dict[str, Any], Any]:
    for issue in issues:
        for edge in issue["messages"]["edges"]:
            if edge["node"]["id"] == message_id:
                return issue, edge["node"]
    raise AssertionError(f"no message {message_id}")


def _reply_address(mailbox: MailboxFixture, issue_id: str) -> str:
    server = mailbox.workspace.server

    async def address() -> str:
        found = await fetch_issues(server.db, mailbox.workspace.id, [issue_id])
        issue = found[issue_id]
        assert issue is not None
        mailboxes = await _mailbox(mailbox)
        return await server.app.state.mail.reply_address(mailboxes, issue.id, issue.ticket_number)

    return server.call(address())


async def _mailbox(mailbox: MailboxFixture) -> Any:
    server = mailbox.workspace.server
    return (await get_mailboxes(server.db, mailbox.workspace.id, [mailbox.id]))[mailbox.id]


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("name", CASES)
def test_corpus_message(name: str, door: str, mailbox: MailboxFixture, smtp_port: int) -> None:
    expected = sidecar(name)
    earlier: dict[str, Kept] = {}
    for first in expected.get("after", []):
        made = deliver(door, mailbox, raw_of(first, mailbox), smtp_port)
        assert made is not None and made.status in ("created", "appended"), made
        earlier[first] = made
    api = mailbox.workspace.client()
    for status in expected.get("set_status", []):
        issue_id = earlier[expected["after"][0]].issue_id
        assert api.ok(UPDATE, {"input": {"id": issue_id, "status": status}})["updateIssue"] == {
            "error": None
        }
    raw = raw_of(name, mailbox)
    recipient = None
    if "token_of" in expected:
        issue_id = earlier[expected["token_of"]].issue_id
        assert issue_id is not None
        recipient = _reply_address(mailbox, issue_id)
        raw = raw.replace(
            mailbox.address.replace("support@", "support+TOKEN@").encode(), recipient.encode()
        )
    issues_before = {issue["id"] for issue in threads(mailbox)}

    kept = deliver(door, mailbox, raw, smtp_port, recipient)

    issues = threads(mailbox)
    if expected.get("duplicate"):
        assert kept is None
        assert len(issues) == expected["issues"]
        return
    assert kept is not None
    assert kept.status == expected["status"], kept.reason
    assert kept.raw.replace(b"\r\n", b"\n").rstrip(b"\n") == raw.rstrip(b"\n")
    assert kept.automatic == expected.get("automatic", False)
    if expected["thread"] == "none":
        assert kept.message_id is None and {i["id"] for i in issues} == issues_before
        return
    assert kept.message_id is not None
    issue, message = message_of(issues, kept.message_id)
    if expected["thread"] == "new":
        assert issue["id"] not in issues_before
        assert issue["subject"] == expected["subject"]
        assert issue["messages"]["edges"][0]["node"]["id"] == message["id"]
    else:
        assert issue["id"] == earlier[expected["thread"].removeprefix("same_as:")].issue_id
    assert issue["requester"]["email"] == expected["requester"]
    assert message["author"]["email"] == expected.get("author", expected["requester"])
    if "sender_name" in expected:
        assert message["senderName"] == expected["sender_name"]
    if "body" in expected:
        assert message["body"] == expected["body"]
    for text in expected.get("body_contains", []):
        assert text in message["body"]
    for text in expected.get("body_excludes", []):
        assert text not in message["body"]
    assert message["channel"] == "email"
    assert message["visibility"] == expected.get("visibility", "public")
    assert message["email"]["status"] == "received"
    assert message["email"]["messageId"] == kept.message_key
    if "message_id_prefix" in expected:
        assert kept.message_key.startswith(expected["message_id_prefix"])
    for text in expected.get("original_contains", []):
        assert text in message["email"]["originalText"]
    if "issue_status" in expected:
        assert issue["status"] == expected["issue_status"]
    if "other_issue_status" in expected:
        old = next(i for i in issues if i["id"] == earlier[expected["after"][0]].issue_id)
        assert old["status"] == expected["other_issue_status"]
    files = [
        {key: file[key] for key in wanted}
        for file, wanted in zip(message["attachments"], expected["attachments"], strict=True)
    ]
    assert files == expected["attachments"]


def test_the_corpus_is_large_and_covers_the_clients() -> None:
    assert len(CASES) >= 30
    every_sidecar = " ".join(json.dumps(sidecar(name)) for name in CASES)
    for kind in ("Gmail", "Outlook", "Apple Mail", "Thunderbird", "ISO-2022-JP", "windows-1252"):
        assert kind in every_sidecar
