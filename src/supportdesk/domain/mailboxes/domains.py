"""Mail domains: which workspace may have mailboxes on a domain.

Mail is routed to a mailbox by its address, before anyone knows the workspace, and the
dispatcher sends as that address through the server's relay. So an address on a domain
that one workspace uses must not be open to another: it could receive mail meant for the
first, or write to the first's customers in its name. A domain here is an organisation's
(the Public Suffix List's registrable domain: `mail.acme.co.uk` is `acme.co.uk`'s), so
subdomains and parents go with it. The first workspace to have a mailbox on it holds it
until its last mailbox there goes. The operator (the command line) can grant a domain to
a workspace for good, or share it, as a public provider's where each workspace has its own
addresses (one workspace per address still holds)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache

from publicsuffixlist import PublicSuffixList
from sqlalchemy import bindparam, delete, func, insert, or_, select, update

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
    # Whether the operator said so (it stays without mailboxes), or the first mailbox did.
    granted: bool
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class _Holder:
    held_by: str | None
    granted: bool


_MAILBOX_WITH_ADDRESS = select(mailboxes.c.id).where(mailboxes.c.address == bindparam("address"))
_HOLDER = select(mail_domains.c.held_by, mail_domains.c.granted).where(
    mail_domains.c.domain == bindparam("domain")
)
# Every workspace's mailboxes on a domain or under it, earliest first (then filtered by
# their organisation's domain: `x.acme.example` ends like `notacme.example` does not, but
# an address under a public suffix may). Addresses are stored lowercase; `lower` makes
# rows written by hand count too.
_MAILBOXES_ON = (
    select(mailboxes.c.workspace_id, mailboxes.c.id, mailboxes.c.address)
    .where(
        or_(
            func.lower(mailboxes.c.address).like(bindparam("at"), escape="/"),
            func.lower(mailboxes.c.address).like(bindparam("under"), escape="/"),
        )
    )
    .order_by(mailboxes.c.created_at, mailboxes.c.id)
)
_PASS_HOLD = (
    update(mail_domains)
    # An UPDATE's bound parameters may not take its columns' names.
    .where(mail_domains.c.domain == bindparam("the_domain"))
    .values(held_by=bindparam("to"), updated_at=bindparam("at"))
)
_DROP_HOLD = delete(mail_domains).where(
    mail_domains.c.domain == bindparam("domain"),
    mail_domains.c.held_by == bindparam("workspace_id"),
    mail_domains.c.granted.is_(False),
)


@cache
def _suffixes() -> PublicSuffixList:
    return PublicSuffixList()  # about 80 ms: made when mail first needs it


def organisation_of(domain: str) -> str | None:
    """The registrable domain `domain` is or is under (`mail.acme.co.uk`: `acme.co.uk`);
    None for a public suffix (`co.uk`, `github.io`)."""
    found: str | None = _suffixes().privatesuffix(domain.strip().lower())
    return found


def mail_domain_of(address: str) -> str:
    """The organisation's domain an address is on: `support@mail.acme.co.uk` is on
    `acme.co.uk`. A public suffix itself (`x@co.uk`) is its own."""
    domain = address.rpartition("@")[2].strip().lower()
    return organisation_of(domain) or domain


async def locked_holder(connection: Connection, domain: str) -> _Holder | None:
    """Lock the domain until the transaction ends (whoever adds a mailbox on it or changes
    who may, takes turns), then read who holds it: None when no one."""
    await lock_name(connection, f"mail domain {domain}")
    rows = await connection.rows(_HOLDER, {"domain": domain})
    return _Holder(rows[0][0], bool(rows[0][1])) if rows else None


async def claim_address(
    connection: Connection, workspace_id: str, address: str, mailbox_id: str | None
) -> None:
    """In a mailbox's writing transaction, before it takes `address`: ALREADY_EXISTS when
    another mailbox, of any workspace, has the address, or another workspace holds its
    domain; otherwise the workspace holds the domain from now on if no one did. The
    domain's lock makes two creators on one domain take turns, so the second sees the
    first."""
    domain = mail_domain_of(address)
    holder = await locked_holder(connection, domain)
    taken = await connection.rows(_MAILBOX_WITH_ADDRESS, {"address": address})
    if any(row[0] != mailbox_id for row in taken):
        raise DomainError(
            ErrorCode.ALREADY_EXISTS,
            "This address belongs to a mailbox already.",
            [FieldError("address", FieldCode.INVALID)],
        )
    if holder is None:
        moment = now()
        await connection.execute(
            insert(mail_domains).values(
                domain=domain,
                held_by=workspace_id,
                granted=False,
                created_at=moment,
                updated_at=moment,
            )
        )
    elif holder.held_by not in (None, workspace_id):
        raise DomainError(
            ErrorCode.ALREADY_EXISTS,
            f"Another workspace on this server has the mail domain {domain}. If it is yours,"
            " the server's operator can grant it to this workspace"
            " (`supportdesk mail-domains grant`).",
            [FieldError("address", FieldCode.INVALID)],
        )


async def release_address(
    connection: Connection, workspace_id: str, address: str, mailbox_id: str
) -> None:
    """In the transaction where mailbox `mailbox_id` leaves `address`: when no other mailbox
    of the workspace is on its domain, a hold the first mailbox made ends (one the
    operator granted stays), so that no one keeps a domain by making and deleting a
    mailbox. Mailboxes other workspaces kept there from before the rule take the hold, the
    earliest first: the domain is theirs, not the next comer's."""
    domain = mail_domain_of(address)
    holder = await locked_holder(connection, domain)
    if holder is None or holder.granted or holder.held_by != workspace_id:
        return
    still = [
        (space, found) for space, found, _ in await mailboxes_on(connection, domain)
        if found != mailbox_id
    ]  # fmt: skip
    if any(space == workspace_id for space, _ in still):
        return
    if still:
        await connection.execute(_PASS_HOLD, {"the_domain": domain, "to": still[0][0], "at": now()})
    else:
        await connection.execute(_DROP_HOLD, {"domain": domain, "workspace_id": workspace_id})


async def mailboxes_on(connection: Connection, domain: str) -> list[tuple[str, str, str]]:
    """(workspace id, mailbox id, address) of every workspace's mailboxes on an
    organisation's domain, earliest first."""
    escaped = domain.replace("/", "//").replace("%", "/%").replace("_", "/_")
    patterns = {"at": f"%@{escaped}", "under": f"%.{escaped}"}
    return [
        (row[0], row[1], row[2])
        for row in await connection.rows(_MAILBOXES_ON, patterns)
        if mail_domain_of(row[2]) == domain
    ]


async def move_address(
    connection: Connection, workspace_id: str, mailbox_id: str, old: str, new: str
) -> None:
    """In the transaction where a mailbox changes its address: `claim_address` of the new
    one, `release_address` of the old one's domain when it is another. The two domains are
    locked in one order first, so that two such moves the other way round wait instead of
    deadlocking (on PostgreSQL a transaction's advisory locks stack)."""
    for domain in sorted({mail_domain_of(old), mail_domain_of(new)}):
        await lock_name(connection, f"mail domain {domain}")
    await claim_address(connection, workspace_id, new, mailbox_id)
    if mail_domain_of(old) != mail_domain_of(new):
        await release_address(connection, workspace_id, old, mailbox_id)
