"""Reading mailboxes: the workspace's list, and the two lookups mail is routed by before
anyone knows its workspace (an address, an inbound token)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, select

from supportdesk.auth import inbound_tokens
from supportdesk.db import Database
from supportdesk.db.tables import mailboxes
from supportdesk.domain.counting import count_rows
from supportdesk.domain.mailboxes.models import MAILBOX_COLUMNS, Mailbox, mailbox_of
from supportdesk.domain.pagination import Page, PageRequest, page_of


async def list_mailboxes(db: Database, workspace_id: str, page: PageRequest) -> Page[Mailbox]:
    """Oldest first, as every list."""
    query = select(*MAILBOX_COLUMNS).where(mailboxes.c.workspace_id == workspace_id)
    if page.after:
        query = query.where(mailboxes.c.id > page.after)
    query = query.order_by(mailboxes.c.id).limit(page.first + 1)
    async with db.read() as connection:
        rows = (await connection.execute(query)).all()
    return page_of([mailbox_of(row) for row in rows], page.first)


async def count_mailboxes(db: Database, workspace_id: str) -> int:
    return await count_rows(db, mailboxes, workspace_id)


async def get_mailboxes(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, Mailbox]:
    query = select(*MAILBOX_COLUMNS).where(
        mailboxes.c.workspace_id == workspace_id, mailboxes.c.id.in_(ids)
    )
    async with db.read() as connection:
        return {row[0]: mailbox_of(row) for row in await connection.execute(query)}


def base_address(recipient: str) -> str:
    """The address a recipient is a form of: `support+anything@x` is `support@x`."""
    local, _, domain = recipient.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"


def plus_part(recipient: str) -> str | None:
    local = recipient.strip().rpartition("@")[0]
    return local.split("+", 1)[1] if "+" in local else None


_BY_ADDRESS = select(*MAILBOX_COLUMNS).where(mailboxes.c.address == bindparam("address"))


async def mailbox_for_recipient(db: Database, recipient: str) -> Mailbox | None:
    """The mailbox a recipient address (or a plus form of it) belongs to, of any workspace."""
    async with db.read() as connection:
        rows = await connection.rows(_BY_ADDRESS, {"address": base_address(recipient)})
    return mailbox_of(rows[0]) if rows else None


async def mailbox_for_token(db: Database, token: str) -> Mailbox | None:
    """The mailbox whose inbound token this is; None for a malformed or unknown one."""
    if not inbound_tokens.is_wellformed(token):
        return None
    query = select(*MAILBOX_COLUMNS).where(
        mailboxes.c.token_hash == inbound_tokens.hash_secret(token)
    )
    async with db.read() as connection:
        row = (await connection.execute(query)).first()
    return mailbox_of(row) if row is not None else None


async def is_our_address(db: Database, workspace_id: str, address: str) -> bool:
    """Whether an address (or a plus form of it) is one of the workspace's mailboxes: mail
    from it is its own coming back. Another workspace's address is a sender like any other
    (its automatic mail is known by its headers): a workspace that took a customer's address
    as a mailbox must not make that customer's mail to others vanish."""
    mailbox = await mailbox_for_recipient(db, address)
    return mailbox is not None and mailbox.workspace_id == workspace_id
