"""Fixtures of the e-mail tests: the shared server on each backend, its SMTP listener (the
one `serve --smtp-port` starts, on the server's own loop) and a mailbox per workspace."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from supportdesk.smtp.listener import SmtpListener
from tests.conftest import WorkspaceFixture
from tests.graphql.mailboxes.helpers import new_mailbox
from tests.servers import RunningServer


@pytest.fixture(scope="session")
def smtp_port(server: RunningServer) -> Iterator[int]:
    listener = SmtpListener(server.app.state.mail, "127.0.0.1:0")
    server.call(listener.start())
    yield listener.port
    server.call(listener.stop())


@dataclass
class MailboxFixture:
    workspace: WorkspaceFixture
    id: str
    address: str
    token: str

    @property
    def domain(self) -> str:
        return self.address.split("@", 1)[1]


def _mailbox_of(workspace: WorkspaceFixture) -> MailboxFixture:
    made: dict[str, Any] = new_mailbox(workspace.client(), name="Support")
    return MailboxFixture(
        workspace, made["mailbox"]["id"], made["mailbox"]["address"], made["inboundToken"]
    )


@pytest.fixture
def mailbox(workspace: WorkspaceFixture) -> MailboxFixture:
    """A mailbox of the test's workspace, at an address of its own."""
    return _mailbox_of(workspace)


@pytest.fixture
def other_mailbox(other_workspace: WorkspaceFixture) -> MailboxFixture:
    return _mailbox_of(other_workspace)
