"""Sending raw mail through the public doors: SMTP to the listener (smtplib), and HTTP to
POST /v1/inbound-email (httpx)."""

from __future__ import annotations

import smtplib
from typing import Any

import httpx

from tests.email.conftest import MailboxFixture
from tests.servers import RunningServer

PLACEHOLDER = b"support@acme.test"
PLACEHOLDER_DOMAIN = b"acme.test"


def addressed(raw: bytes, mailbox: MailboxFixture) -> bytes:
    """A corpus message sent to this test's mailbox instead of support@acme.test."""
    return raw.replace(PLACEHOLDER, mailbox.address.encode()).replace(
        b"@" + PLACEHOLDER_DOMAIN, b"@" + mailbox.domain.encode()
    )


def post_mail(server: RunningServer, token: str, raw: bytes, **headers: str) -> httpx.Response:
    return httpx.post(
        f"{server.base_url}/v1/inbound-email",
        content=raw,
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "message/rfc822",
            **headers,
        },
        timeout=30,
    )


def smtp_send(port: int, sender: str, recipients: list[str], raw: bytes) -> dict[str, Any]:
    """Send over SMTP; the refused recipients (empty when all were taken)."""
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        return client.sendmail(sender, recipients, raw)
