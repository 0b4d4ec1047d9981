"""Migration 0024 gives each organisation's mail domain already in use (a subdomain's
mailbox is on its organisation's) to the workspace of its earliest mailbox there, and keeps
every mailbox where it was; downgrading drops the domains."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from alembic import command
from sqlalchemy import insert, inspect, select

from supportdesk.db.migrate import alembic_config, upgrade
from supportdesk.db.tables import mail_domains, mailboxes, workspaces
from tests.db.inspection import inspected
from tests.db.test_migration_0005 import with_connection

AT = datetime(2026, 11, 22, 13, 45, 7, tzinfo=UTC)
FIRST, SECOND = "ws_01JD0000000000000000000AAN", "ws_01JD0000000000000000000AAP"
# (workspace, mailbox id, address, minutes after AT): the second workspace's mailboxes on
# acme.example and under first.example are made first, so it keeps both domains; an
# address written by hand in capitals counts as the service writes it.
MAILBOXES = [
    (FIRST, "mbx_1", "support@acme.example", 5),
    (SECOND, "mbx_2", "billing@acme.example", 1),
    (FIRST, "mbx_3", "help@first.example", 2),
    (SECOND, "mbx_4", "help@mail.first.example", 0),
    (FIRST, "mbx_5", "Odd@Upper.Example", 3),
]


async def seed(connection: Any) -> None:
    for workspace in (FIRST, SECOND):
        await connection.execute(insert(workspaces).values(id=workspace, name="W", created_at=AT))
    for workspace, mailbox_id, address, minutes in MAILBOXES:
        moment = AT + timedelta(minutes=minutes)
        await connection.execute(
            insert(mailboxes).values(
                workspace_id=workspace,
                id=mailbox_id,
                address=address,
                acknowledge=False,
                token_hash=mailbox_id.ljust(64, "0"),
                token_prefix="mbt_x",
                created_at=moment,
                updated_at=moment,
            )
        )


async def holders(connection: Any) -> dict[str, tuple[str | None, bool]]:
    columns = mail_domains.c
    rows = await connection.execute(select(columns.domain, columns.held_by, columns.granted))
    return {domain: (held_by, bool(granted)) for domain, held_by, granted in rows}


async def addresses(connection: Any) -> dict[str, str]:
    rows = await connection.execute(select(mailboxes.c.id, mailboxes.c.address))
    return dict(rows.all())


def test_each_domain_goes_to_its_earliest_mailbox_and_down_drops_them(
    empty_database: str,
) -> None:
    url = empty_database
    upgrade(url, "0023")
    asyncio.run(with_connection(url, seed))

    upgrade(url, "0024")
    held = asyncio.run(with_connection(url, holders))
    kept = asyncio.run(with_connection(url, addresses))
    command.downgrade(alembic_config(url), "0023")

    assert held == {
        "acme.example": (SECOND, False),
        "first.example": (SECOND, False),
        "upper.example": (FIRST, False),
    }
    assert kept == {mailbox_id: address for _, mailbox_id, address, _ in MAILBOXES}
    assert "mail_domains" not in inspected(url, lambda c: inspect(c).get_table_names())
    assert asyncio.run(with_connection(url, addresses)) == kept
