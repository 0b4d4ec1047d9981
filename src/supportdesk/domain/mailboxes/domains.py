"""Mail domains: which workspace may have mailboxes on a domain.

Mail is routed to a mailbox by its address, before anyone knows the workspace, and the
dispatcher sends as that address through the server's relay. So an address on a domain
that one workspace uses must not be open to another: it could receive mail meant for the
first, or write to the first's customers in its name. The first workspace to have a
mailbox on a domain holds it, and its subdomains. The operator (the command line) can
grant a domain to another workspace, or share it, as for a public provider's domain where
each workspace has its own address (one workspace per address still holds)."""

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
_HOLDERS = select(mail_domains.c.domain, mail_domains.c.held_by).where(
    mail_domains.c.domain.in_(bindparam("domains", expanding=True))
)


def domain_of(address: str) -> str:
    return address.rpartition("@")[2].lower()


def _parents(domain: str) -> list[str]:
    """`mail.acme.example` has `acme.example` (not `example`: a top-level domain)."""
    labels = domain.split(".")
    return [".".join(labels[start:]) for start in range(1, len(labels) - 1)]


async def locked_holders(connection: Connection, domain: str) -> dict[str, str | None]:
    """Lock the domain until the transaction ends (whoever adds a mailbox on it or changes
    who may, takes turns), then read who holds it and its parent domains: those with a
    row, each with its workspace (None: shared)."""
    await lock_name(connection, f"mail domain {domain}")
    rows = await connection.rows(_HOLDERS, {"domains": [domain, *_parents(domain)]})
    return {row[0]: row[1] for row in rows}


def _refusing_holder(holders: dict[str, str | None], domain: str, workspace_id: str) -> str | None:
    """The domain that keeps the workspace off `domain`, if any: the domain itself held by
    another, or, when the operator said nothing of it, a parent held by another (a
    domain's subdomains are its holder's)."""
    if domain in holders:
        return domain if holders[domain] not in (None, workspace_id) else None
    others = [name for name, holder in holders.items() if holder not in (None, workspace_id)]
    return others[0] if others else None


async def claim_address(
    connection: Connection, workspace_id: str, address: str, mailbox_id: str | None
) -> None:
    """In a mailbox's writing transaction, before it takes `address`: ALREADY_EXISTS when
    another mailbox, of any workspace, has the address, or another workspace holds its
    domain; otherwise the workspace holds the domain from now on if no one did. The
    domain's lock makes two creators on one domain take turns, so the second sees the
    first."""
    domain = domain_of(address)
    holders = await locked_holders(connection, domain)
    taken = await connection.rows(_MAILBOX_WITH_ADDRESS, {"address": address})
    if any(row[0] != mailbox_id for row in taken):
        raise DomainError(
            ErrorCode.ALREADY_EXISTS,
            "This address belongs to a mailbox already.",
            [FieldError("address", FieldCode.INVALID)],
        )
    refusing = _refusing_holder(holders, domain, workspace_id)
    if refusing is not None:
        raise DomainError(
            ErrorCode.ALREADY_EXISTS,
            f"Another workspace on this server has mailboxes on {refusing}. If the domain is"
            " yours, the server's operator can grant it to this workspace"
            " (`supportdesk mail-domains grant`).",
            [FieldError("address", FieldCode.INVALID)],
        )
    if domain not in holders:
        moment = now()
        await connection.execute(
            insert(mail_domains).values(
                domain=domain, held_by=workspace_id, created_at=moment, updated_at=moment
            )
        )
