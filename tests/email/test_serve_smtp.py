"""`supportdesk serve --smtp-port P` as an operator runs it: every worker listens on the
port, and mail sent there becomes an issue."""

from __future__ import annotations

import json
import smtplib
from pathlib import Path

import pytest

from tests.client import GraphQLClient
from tests.graphql.mailboxes.helpers import new_mailbox
from tests.processes import ServeProcess, command_env, free_port, run_cli

pytestmark = pytest.mark.processes


def test_serve_takes_mail_on_its_smtp_port_with_two_workers(tmp_path: Path) -> None:
    env = command_env(database_url=f"sqlite:///{tmp_path}/served.db", webhook_dispatch="false")
    made = json.loads(
        run_cli(env, "init", "--workspace", "Acme", "--admin-email", "a@acme.test", "--json")
    )
    smtp_port = free_port()
    serve = ServeProcess(env, 2, ("--smtp-port", str(smtp_port))).start()
    try:
        serve.wait_ready()
        api = GraphQLClient(serve.base_url, made["api_key"])
        address = new_mailbox(api)["mailbox"]["address"]
        mail = (
            f"From: Alice <alice@customer.test>\r\nTo: {address}\r\n"
            "Subject: Hello over SMTP\r\nMessage-ID: <served-1@customer.test>\r\n\r\nHi!\r\n"
        )
        for _ in range(4):  # new connections: the kernel spreads them over both workers
            with smtplib.SMTP("127.0.0.1", smtp_port, timeout=30) as client:
                client.sendmail("alice@customer.test", [address], mail.encode())

        issues = api.ok("{ issues { totalCount edges { node { subject } } } }")["issues"]
        assert issues["totalCount"] == 1  # one Message-ID, filed once
        assert issues["edges"][0]["node"]["subject"] == "Hello over SMTP"
    finally:
        serve.stop()
