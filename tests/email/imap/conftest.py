"""Fixtures of the IMAP door's tests: one Dovecot for the session, and a server per backend
on a database of its own (the poller polls every mailbox of its database, so no other
test's mailboxes may be there). Each test runs the poller the dispatcher role runs, on the
server's loop, and gets a Dovecot user of its own."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from supportdesk.auth.secret_box import new_server_key
from supportdesk.auth.server_key import ServerKey
from supportdesk.imap.poller import ImapPoller
from tests.conftest import BACKENDS, make_workspace
from tests.email.conftest import MailboxFixture
from tests.email.imap.dovecot import Dovecot, ensure_installed
from tests.graphql.mailboxes.helpers import DELETE, new_mailbox
from tests.servers import IN_CI, RunningServer, create_postgres_database, drop_postgres_database

POLL_SECONDS = 0.1
FOLDER = "Support"


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Dovecot]:
    missing = ensure_installed()
    if missing is not None:
        if IN_CI:
            pytest.fail(f"Dovecot is required in CI: {missing}")
        pytest.skip(missing)
    with tempfile.TemporaryDirectory(prefix="supportdesk-dovecot-") as folder:
        # Dovecot's own users (dovecot, dovenull) read the config and the certificate.
        os.chmod(folder, 0o755)  # noqa: S103
        running = Dovecot.start(Path(folder))
        yield running
        running.stop()


def _database(backend: str, folder: Path) -> str:
    if backend == "sqlite":
        return f"sqlite+aiosqlite:///{folder / 'imap.db'}"
    try:
        return create_postgres_database()
    except Exception as error:
        if IN_CI:
            pytest.fail(f"PostgreSQL is required in CI and was not reachable: {error}")
        pytest.skip(f"PostgreSQL not reachable ({error})")


@pytest.fixture(scope="module", params=BACKENDS)
def imap_server(request: pytest.FixtureRequest, dovecot: Dovecot) -> Iterator[RunningServer]:
    with tempfile.TemporaryDirectory(prefix="supportdesk-imap-") as folder:
        url = _database(request.param, Path(folder))
        running = RunningServer(
            request.param,
            url,
            secret_key=new_server_key(),
            imap_ca_file=str(dovecot.cert),
            imap_poll_seconds=POLL_SECONDS,
            imap_timeout_seconds=5,
            failed_auth_per_minute=1_000_000,
        ).start()
        try:
            yield running
        finally:
            running.stop()
            if request.param != "sqlite":
                drop_postgres_database(url)


@dataclass
class ImapAccount:
    """A Dovecot user of the test's own, with its folder, and a mailbox that polls it."""

    dovecot: Dovecot
    user: str
    password: str
    mailbox: MailboxFixture

    def append(self, raw: bytes, folder: str = FOLDER) -> None:
        client = self.dovecot.client(self.user, self.password)
        try:
            status, said = client.append(folder, None, None, raw)
            assert status == "OK", said
        finally:
            client.logout()

    def recreate_folder(self, folder: str = FOLDER) -> None:
        """Delete the folder and make it again: a new UIDVALIDITY, every UID anew."""
        client = self.dovecot.client(self.user, self.password)
        try:
            assert client.delete(folder)[0] == "OK"
            assert client.create(folder)[0] == "OK"
        finally:
            client.logout()

    def seen_flags(self, folder: str = FOLDER) -> list[bytes]:
        client = self.dovecot.client(self.user, self.password)
        try:
            client.select(folder, readonly=True)
            _, found = client.search(None, "SEEN")
            return [number for number in found[0].split() if number]
        finally:
            client.logout()


def imap_url(
    dovecot: Dovecot, user: str, password: str, *, starttls: bool = False, folder: str = FOLDER
) -> str:
    secret = quote(password, safe="")
    if starttls:
        return f"imap://{user}:{secret}@127.0.0.1:{dovecot.imap_port}/{folder}?starttls=true"
    return f"imaps://{user}:{secret}@127.0.0.1:{dovecot.imaps_port}/{folder}"


def new_account(
    server: RunningServer,
    dovecot: Dovecot,
    *,
    starttls: bool = False,
    url_password: str | None = None,
) -> ImapAccount:
    user, password = dovecot.new_user()
    client = dovecot.client(user, password)
    try:
        assert client.create(FOLDER)[0] == "OK"
    finally:
        client.logout()
    workspace = make_workspace(server)
    url = imap_url(dovecot, user, url_password or password, starttls=starttls)
    made: dict[str, Any] = new_mailbox(workspace.client(), name="Support", imapUrl=url)
    mailbox = MailboxFixture(
        workspace, made["mailbox"]["id"], made["mailbox"]["address"], made["inboundToken"]
    )
    return ImapAccount(dovecot, user, password, mailbox)


@pytest.fixture
def accounts(imap_server: RunningServer, dovecot: Dovecot) -> Iterator[list[ImapAccount]]:
    """Accounts the test makes (`accounts.append(new_account(...))`): their mailboxes are
    deleted afterwards, so that later tests' pollers leave them be."""
    made: list[ImapAccount] = []
    yield made
    for account in made:
        client = account.mailbox.workspace.client()
        client.ok(DELETE, {"id": account.mailbox.id})


@contextmanager
def polling(server: RunningServer, **settings: Any) -> Iterator[ImapPoller]:
    """The dispatcher role's poller, on the server's loop, until the block ends."""
    # The tests' Dovecot listens on 127.0.0.1.
    configured = server.settings.model_copy(update={"imap_allow_private": True, **settings})
    key = ServerKey(configured.secret_key, server.db)
    poller = ImapPoller(server.db, configured, key)
    server.call(poller.start())
    try:
        yield poller
    finally:
        server.call(poller.stop())
