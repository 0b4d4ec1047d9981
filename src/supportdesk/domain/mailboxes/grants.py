"""The operator's say over mail domains (the command line): grant a domain to one
workspace for good, or share it among all (docs/email.md, "Several workspaces")."""

from __future__ import annotations

from sqlalchemy import insert, select, update

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import mail_domains
from supportdesk.domain import audit
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode, InvalidArgument
from supportdesk.domain.mailboxes.actions import delete_mailbox
from supportdesk.domain.mailboxes.domains import (
    MailDomain,
    locked_holder,
    mailboxes_on,
    organisation_of,
)
from supportdesk.domain.validation import Validator
from supportdesk.domain.workspaces import get_workspace


async def list_mail_domains(db: Database) -> list[MailDomain]:
    """Every domain held or shared, by name."""
    query = select(
        mail_domains.c.domain,
        mail_domains.c.held_by,
        mail_domains.c.granted,
        mail_domains.c.updated_at,
    ).order_by(mail_domains.c.domain)
    async with db.read() as connection:
        return [
            MailDomain(row[0], row[1], bool(row[2]), row[3])
            for row in await connection.execute(query)
        ]


def _clean_domain(value: str) -> str:
    """An organisation's domain, as mailboxes are held by: `acme.example`, not
    `mail.acme.example` (whose mailboxes it covers)."""
    check = Validator()
    # A domain is valid when an address on it would be.
    check.email("domain", f"support@{value.strip()}", required=True)
    if check.errors or "@" in value:
        raise InvalidArgument(f"{value!r} is not a mail domain (write it as example.com).")
    domain = value.strip().lower()
    organisation = organisation_of(domain)
    if organisation is None:
        raise InvalidArgument(
            f"{domain} is a public suffix, under which each domain is an organisation's own:"
            " grant or share that domain."
        )
    if organisation != domain:
        raise InvalidArgument(
            f"Mailboxes are held by the organisation's domain: {organisation}, which covers"
            f" {domain}."
        )
    return domain


async def _set_holder(connection: Connection, domain: str, held_by: str | None) -> MailDomain:
    moment = now()
    if await locked_holder(connection, domain) is not None:
        statement = update(mail_domains).where(mail_domains.c.domain == domain)
        await connection.execute(statement.values(held_by=held_by, granted=True, updated_at=moment))
    else:
        await connection.execute(
            insert(mail_domains).values(
                domain=domain, held_by=held_by, granted=True, created_at=moment, updated_at=moment
            )
        )
    return MailDomain(domain, held_by, True, moment)


async def grant_mail_domain(
    db: Database, domain: str, workspace_id: str, *, delete_others: bool = False
) -> MailDomain:
    """The workspace alone may have mailboxes on the domain and its subdomains from now
    on, whether it has any there or not. While other workspaces have mailboxes there,
    refused (naming them), so that no one's mail is taken silently; with `delete_others`,
    those mailboxes are deleted, each as its own workspace's admin would (its audit entry
    and event)."""
    clean = _clean_domain(domain)
    await get_workspace(db, workspace_id)
    async with db.transaction() as connection:
        granted = await _set_holder(connection, clean, workspace_id)
        others = [
            found for found in await mailboxes_on(connection, clean) if found[0] != workspace_id
        ]
        if others and not delete_others:
            named = ", ".join(
                f"{address} ({mailbox} of {space})" for space, mailbox, address in others
            )
            raise InvalidArgument(
                f"Other workspaces have mailboxes on {clean}: {named}. Their admins can delete"
                " them (Settings → Email), or grant again with --delete-others."
            )
    # Granted first: from here on, no other workspace can add a mailbox on the domain.
    for space, mailbox, _address in others:
        try:
            await delete_mailbox(db, audit.CLI_ACTOR, space, mailbox)
        except DomainError as error:
            if error.code != ErrorCode.NOT_FOUND:  # its admin deleted it meanwhile
                raise
    return granted


async def share_mail_domain(db: Database, domain: str) -> MailDomain:
    """Any workspace may have addresses on the domain (one workspace per address)."""
    async with db.transaction() as connection:
        return await _set_holder(connection, _clean_domain(domain), None)
