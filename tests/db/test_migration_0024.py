"""Migration 0024 gives each organisation's mail domain already in use (a subdomain's
mailbox is on its organisation's) to the workspace of its earliest mailbox there, and keeps
every mailbox where it was; downgrading drops the domains."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from alembic import command
from sqlalchemy import insert, inspect, select

from supportdesk.db import Database
from supportdesk.db.migrate import alembic_config, upgrade
from supportdesk.db.tables import mail_domains, mailboxes, workspaces
from supportdesk.domain import audit
from supportdesk.domain.ids import new_id
from supportdesk.domain.mailboxes import delete_mailbox
from tests.db.inspection import inspected
from tests.db.test_migration_0005 import with_connection

AT = datetime(2026, 11, 22, 13, 45, 7, tzinfo=UTC)
FIRST, SECOND = "ws_01JD0000000000000000000AAN", "ws_01JD0000000000000000000AAP"
# (workspace, mailbox id, address, minutes after AT): the second workspace's mailboxes on
# acme.example and under first.example are made first, so it keeps both domains; an
# address written by hand in capitals counts as the service writes it.
ACME_FIRST, ACME_SECOND = new_id("Mailbox", AT), new_id("Mailbox", AT)
MAILBOXES = [
    (FIRST, ACME_FIRST, "support@acme.example", 5),
    (SECOND, ACME_SECOND, "billing@acme.example", 1),
    (FIRST, new_id("Mailbox", AT), "help@first.example", 2),
    (SECOND, new_id("Mailbox", AT), "help@mail.first.example", 0),
    (FIRST, new_id("Mailbox", AT), "Odd@Upper.Example", 3),
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


async def _delete(url: str, workspace_id: str, mailbox_id: str) -> None:
    db = Database(url, pool_size=1)
    try:
        await delete_mailbox(db, audit.CLI_ACTOR, workspace_id, mailbox_id)
    finally:
        await db.dispose()


def test_a_released_hold_passes_to_a_workspace_that_kept_mailboxes_there(
    empty_database: str,
) -> None:
    """The second workspace held acme.example by its earlier mailbox; when that goes, the
    first, whose mailbox there came from before the rule, holds it, not the next comer."""
    url = empty_database
    upgrade(url, "0023")
    asyncio.run(with_connection(url, seed))
    upgrade(url)

    asyncio.run(_delete(url, SECOND, ACME_SECOND))
    after_one = asyncio.run(with_connection(url, holders))["acme.example"]
    asyncio.run(_delete(url, FIRST, ACME_FIRST))
    after_all = asyncio.run(with_connection(url, holders))

    assert after_one == (FIRST, False)
    assert "acme.example" not in after_all
