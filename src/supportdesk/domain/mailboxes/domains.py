"""Mail domains: which workspace may have mailboxes on a domain.

Mail is routed to a mailbox by its address, before anyone knows the workspace, and the
dispatcher sends as that address through the server's relay. So an address on a domain
that one workspace uses must not be open to another: it could receive mail meant for the
first, or write to the first's customers in its name. The first workspace to have a
mailbox on a domain holds it. The operator (the command line) can grant a domain to
another workspace, or share it, as for a public provider's domain where each workspace
has its own address (one workspace per address still holds)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, insert, select

from supportdesk.db.connection import Connection
from supportdesk.db.locking import lock_name
from supportdesk.db.tables import mail_domains, mailboxes
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, FieldError


@dataclass(frozen=True, slots=True)
class MailDomain:
    domain: str
    # The workspace that holds it; None when shared.
    held_by: str | None
    updated_at: datetime


_MAILBOX_WITH_ADDRESS = select(mailboxes.c.id).where(mailboxes.c.address == bindparam("address"))
_HOLDER = select(mail_domains.c.held_by).where(mail_domains.c.domain == bindparam("domain"))


def domain_of(address: str) -> str:
    return address.rpartition("@")[2].lower()


async def locked_holder(connection: Connection, domain: str) -> tuple[bool, str | None]:
    """Lock the domain until the transaction ends (whoever adds a mailbox on it or changes
    who may, takes turns), then read it: whether it has a row, and who holds it."""
    await lock_name(connection, f"mail domain {domain}")
    rows = await connection.rows(_HOLDER, {"domain": domain})
    return (True, rows[0][0]) if rows else (False, None)


async def claim_address(
    connection: Connection, workspace_id: str, address: str, mailbox_id: str | None
) -> None:
    """In a mailbox's writing transaction, before it takes `address`: ALREADY_EXISTS when
    another mailbox, of any workspace, has the address, or another workspace holds its
    domain; otherwise the workspace holds the domain from now on if no one did. The
    domain's lock makes two creators on one domain take turns, so the second sees the
    first."""
    domain = domain_of(address)
    known, holder = await locked_holder(connection, domain)
    taken = await connection.rows(_MAILBOX_WITH_ADDRESS, {"address": address})
    if any(row[0] != mailbox_id for row in taken):
        raise DomainError(
            ErrorCode.ALREADY_EXISTS,
            "This address belongs to a mailbox already.",
            [FieldError("address", FieldCode.INVALID)],
        )
    if holder not in (None, workspace_id):
        raise DomainError(
            ErrorCode.ALREADY_EXISTS,
            f"Another workspace on this server has mailboxes on {domain}. If the domain is"
            " yours, the server's operator can grant it to this workspace"
            " (`supportdesk mail-domains grant`).",
            [FieldError("address", FieldCode.INVALID)],
        )
    if not known:
        moment = now()
        await connection.execute(
            insert(mail_domains).values(
                domain=domain, held_by=workspace_id, created_at=moment, updated_at=moment
            )
        )
