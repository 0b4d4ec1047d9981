"""The pipeline as the doors hold it: made once per process from the deployment's parts;
the key that signs issue tokens is derived from the server key on first use."""

from __future__ import annotations

from collections.abc import Sequence

from supportdesk.auth.server_key import ServerKey
from supportdesk.db import Database
from supportdesk.domain.email import issue_tokens
from supportdesk.domain.email.pipeline import AlongWith, MailSetup, Received, receive
from supportdesk.domain.mailboxes.models import Mailbox
from supportdesk.storage import ObjectStorage


class MailIntake:
    def __init__(
        self,
        db: Database,
        server_key: ServerKey,
        storage: ObjectStorage,
        max_message_bytes: int,
        max_file_bytes: int,
    ) -> None:
        self.db = db
        self.max_message_bytes = max_message_bytes
        self._server_key = server_key
        self._storage = storage
        self._max_file_bytes = max_file_bytes
        self._setup: MailSetup | None = None

    async def setup(self) -> MailSetup:
        if self._setup is None:
            key = await self._server_key.derived(issue_tokens.PURPOSE)
            self._setup = MailSetup(
                self._storage, key, self.max_message_bytes, self._max_file_bytes
            )
        return self._setup

    async def receive(
        self,
        mailbox: Mailbox,
        raw: bytes,
        door: str,
        recipients: Sequence[str] = (),
        along_with: AlongWith | None = None,
    ) -> Received:
        setup = await self.setup()
        return await receive(self.db, setup, mailbox, raw, door, recipients, along_with)

    async def reply_address(self, mailbox: Mailbox, issue_id: str, ticket_number: int) -> str:
        """The address whose mail joins this issue: the mailbox's, with the issue token."""
        key = (await self.setup()).thread_key
        token = issue_tokens.issue_token(key, mailbox.workspace_id, issue_id, ticket_number)
        return f"{mailbox.local_part}+{token}@{mailbox.domain}"
