"""A server whose dispatcher sends mail to a real SMTP server of the tests (sink.py), with
its own SMTP listener for the answers, on each backend; a database of its own (its
dispatcher reads the outbox of every workspace)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from supportdesk.smtp.listener import SmtpListener
from tests.conftest import BACKENDS, WorkspaceFixture, make_workspace
from tests.dispatch.conftest import FAST, _own_database
from tests.email.outbound.sink import Sink
from tests.graphql.mailboxes.helpers import new_mailbox
from tests.servers import RunningServer, drop_postgres_database


@pytest.fixture(scope="package")
def sink() -> Iterator[Sink]:
    running = Sink()
    yield running
    running.stop()


@dataclass
class Desk:
    server: RunningServer
    listener_port: int


@pytest.fixture(scope="package", params=BACKENDS)
def desk(request: pytest.FixtureRequest, sink: Sink) -> Iterator[Desk]:
    with tempfile.TemporaryDirectory(prefix="supportdesk-mail-") as folder:
        url = _own_database(request.param, Path(folder))
        server = RunningServer(
            request.param,
            url,
            **{
                **FAST,
                "webhook_dispatch": True,
                "smtp_url": sink.url,
                "storage_url": f"file://{folder}/files",
            },
        ).start()
        listener = SmtpListener(server.app.state.mail, "127.0.0.1:0")
        server.call(listener.start())
        try:
            yield Desk(server, listener.port)
        finally:
            server.call(listener.stop())
            server.stop()
            if request.param != "sqlite":
                drop_postgres_database(url)


@dataclass
class Mailbox:
    workspace: WorkspaceFixture
    id: str
    address: str

    @property
    def domain(self) -> str:
        return self.address.split("@", 1)[1]


def mailbox_of(desk: Desk, acknowledge: bool = False) -> Mailbox:
    workspace = make_workspace(desk.server)
    made = new_mailbox(workspace.client(), name="Acme Support", acknowledge=acknowledge)
    return Mailbox(workspace, made["mailbox"]["id"], made["mailbox"]["address"])


@pytest.fixture
def mailbox(desk: Desk) -> Mailbox:
    return mailbox_of(desk)
