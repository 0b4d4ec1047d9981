"""Mailboxes: the workspace's e-mail addresses, as the rest of the service sees them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from supportdesk.db.tables import mailboxes


@dataclass(frozen=True, slots=True)
class Mailbox:
    id: str
    workspace_id: str
    address: str
    name: str
    acknowledge: bool
    # The IMAP URL without its password (the whole one is sealed, never shown).
    imap_url: str | None
    token_prefix: str
    created_at: datetime
    updated_at: datetime

    @property
    def local_part(self) -> str:
        return self.address.rsplit("@", 1)[0]

    @property
    def domain(self) -> str:
        return self.address.rsplit("@", 1)[1]


MAILBOX_COLUMNS = (
    mailboxes.c.id,
    mailboxes.c.workspace_id,
    mailboxes.c.address,
    mailboxes.c.name,
    mailboxes.c.acknowledge,
    mailboxes.c.imap_url_shown,
    mailboxes.c.token_prefix,
    mailboxes.c.created_at,
    mailboxes.c.updated_at,
)


def mailbox_of(row: Any) -> Mailbox:
    return Mailbox(*row)
