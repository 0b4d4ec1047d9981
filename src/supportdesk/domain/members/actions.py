"""The writers of members: add, change, remove. Each is one transaction that records its
audit entry and its event (`member.created|updated|removed`).

A workspace keeps at least one admin. Changing a role or removing a member first locks every
admin row of the workspace, in id order (FOR UPDATE on PostgreSQL; SQLite's writer is
alone), so two admins demoting each other at once cannot both succeed: the second waits,
then finds one admin left.

An admin can do everything, a Full-access key included; so a key may make an admin, promote
or demote one, remove one, or set a password (which lets a person log in) only when it
holds every scope itself. Agents are added and changed with `members:manage` alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from supportdesk.auth.scopes import SCOPES
from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.locking import locked_row
from supportdesk.db.tables import issues, org_admins, workspaces
from supportdesk.domain import audit
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, FieldError, not_found
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.members.invitations import Invitation, issue_invitation
from supportdesk.domain.members.models import ADMIN, MEMBER_COLUMNS, ROLES, Member, member_of
from supportdesk.domain.org_admins.service import (
    check_password,
    hash_password_off_loop,
    normalise_email,
)
from supportdesk.domain.rows import updated_row
from supportdesk.domain.validation import Validator

MAX_NAME = 200

# The scopes of the key that acts, or None for a person on the settings page or the
# command line, who may do all an admin may.
KeyScopes = frozenset[str] | None


def _needs_every_scope(key_scopes: KeyScopes, what: str) -> None:
    """Refuse (SCOPE_ESCALATION) a change that hands out an admin's power, unless the key
    making it holds every scope already: what it grants is then no more than it has."""
    if key_scopes is None:
        return
    missing = sorted(set(SCOPES) - key_scopes)
    if missing:
        raise DomainError(
            ErrorCode.SCOPE_ESCALATION,
            f"{what} needs a Full-access key: an admin can do everything. This key lacks"
            f" {', '.join(missing)}.",
        )


def _role(check: Validator, role: str | None, *, required: bool) -> str | None:
    if role is None:
        if required:
            check.fail("role", FieldCode.REQUIRED)
        return None
    cleaned = role.strip().lower()
    if cleaned not in ROLES:
        check.fail("role", FieldCode.INVALID, f"role is one of {', '.join(ROLES)}.")
    return cleaned


async def insert_member(
    connection: Connection,
    workspace_id: str,
    email: str,
    name: str | None,
    role: str,
    password_hash: str | None,
) -> Member:
    """A member row; unnamed, a member is named by their e-mail."""
    moment = now()
    member = Member(new_id("Member", moment), workspace_id, email, name or email, role, moment)
    await connection.execute(
        insert(org_admins).values(
            workspace_id=workspace_id,
            id=member.id,
            email=email,
            email_normalized=normalise_email(email),
            name=member.name,
            password_hash=password_hash,
            role=role,
            created_at=moment,
        )
    )
    return member


@dataclass(frozen=True, slots=True)
class AddedMember:
    """A member just added, with their invitation link when they got one (shown once)."""

    member: Member
    invitation: Invitation | None


async def add_member(
    db: Database,
    actor: audit.Actor,
    workspace_id: str,
    *,
    email: str | None,
    name: str | None = None,
    role: str | None = None,
    password: str | None = None,
    key_scopes: KeyScopes = None,
) -> AddedMember:
    """Add a person to the workspace; an e-mail is unique per workspace, ignoring case
    (ALREADY_EXISTS). With a password they can log in at once; without one they get an
    invitation link to choose it. A link lets whoever holds it log in as the member, so a
    key makes one only when it could set a password itself (Full access); a narrower key
    adds the member without a link, and an admin makes one on Settings → Members. Only a
    Full-access key may add an admin or set a password."""
    check = Validator()
    clean_email = check.email("email", email, required=True)
    clean_name = check.text("name", name, MAX_NAME, required=False)
    clean_role = _role(check, role, required=True)
    if password is not None:
        check_password(check, "password", password)
    check.check()
    assert clean_email is not None and clean_role is not None
    if clean_role == ADMIN:
        _needs_every_scope(key_scopes, "Adding an admin")
    if password is not None:
        _needs_every_scope(key_scopes, "Setting a password")
    password_hash = None
    if password is not None:
        password_hash = await hash_password_off_loop(password)
    invite = password is None and _may_hand_out_logins(key_scopes)
    invitation = None
    try:
        async with db.transaction() as connection:
            exists = await connection.scalar(
                select(workspaces.c.id).where(workspaces.c.id == workspace_id)
            )
            if exists is None:
                raise not_found("Workspace")
            member = await insert_member(
                connection, workspace_id, clean_email, clean_name, clean_role, password_hash
            )
            await _record(connection, actor, "member.created", member)
            if invite:
                invitation = await _invite(connection, actor, member)
    except IntegrityError:
        raise DomainError(
            ErrorCode.ALREADY_EXISTS, f"{clean_email} already belongs to this workspace."
        ) from None
    return AddedMember(member, invitation)


async def create_member(
    db: Database,
    actor: audit.Actor,
    workspace_id: str,
    *,
    email: str | None,
    name: str | None = None,
    role: str | None = None,
    password: str | None = None,
    key_scopes: KeyScopes = None,
) -> Member:
    """`add_member`, for callers that need only the member (its link, if any, is lost)."""
    added = await add_member(
        db,
        actor,
        workspace_id,
        email=email,
        name=name,
        role=role,
        password=password,
        key_scopes=key_scopes,
    )
    return added.member


def _may_hand_out_logins(key_scopes: KeyScopes) -> bool:
    return key_scopes is None or set(SCOPES) <= key_scopes


async def _invite(connection: Connection, actor: audit.Actor, member: Member) -> Invitation:
    invitation = await issue_invitation(connection, member.workspace_id, member.id)
    await audit.record(
        connection,
        member.workspace_id,
        actor,
        "member.invited",
        ("Member", member.id),
        {"email": member.email, "expires_at": invitation.expires_at.isoformat()},
    )
    return invitation


async def invite_member(
    db: Database,
    actor: audit.Actor,
    workspace_id: str,
    member_id: str,
    *,
    key_scopes: KeyScopes = None,
) -> AddedMember:
    """A new invitation link for a member, to choose a (new) password: their earlier
    unused links stop working; their password and sessions hold until the link is used.
    Only a Full-access key may make one (it lets its holder log in as the member)."""
    _needs_every_scope(key_scopes, "Making an invitation link")
    async with db.transaction() as connection:
        member = await _locked_member(connection, workspace_id, member_id)
        invitation = await _invite(connection, actor, member)
    return AddedMember(member, invitation)


async def _locked_member(connection: Connection, workspace_id: str, member_id: str) -> Member:
    row = None
    if is_id_of(member_id, "Member"):
        row = await locked_row(connection, org_admins, MEMBER_COLUMNS, workspace_id, member_id)
    if row is None:
        raise not_found("Member")
    return member_of(row)


async def _locked_admins(connection: Connection, workspace_id: str) -> list[str]:
    """The ids of the workspace's admins, locked in id order before any other member row,
    so that changes of several admins wait for each other instead of in a circle."""
    rows = await connection.execute(
        select(org_admins.c.id)
        .where(org_admins.c.workspace_id == workspace_id, org_admins.c.role == ADMIN)
        .order_by(org_admins.c.id)
        .with_for_update()
    )
    return [row.id for row in rows]


def _keep_an_admin(admins: list[str], leaving: Member, field: str) -> None:
    """Refuse to let the workspace's last admin go (VALIDATION_FAILED, `field` INVALID)."""
    if leaving.role == ADMIN and admins == [leaving.id]:
        raise DomainError(
            ErrorCode.VALIDATION_FAILED,
            "A workspace keeps at least one admin: make another member an admin first.",
            [FieldError(field, FieldCode.INVALID)],
        )


async def _record(connection: Connection, actor: audit.Actor, action: str, member: Member) -> None:
    """The audit entry and the event of a member added or removed."""
    await audit.record(
        connection,
        member.workspace_id,
        actor,
        action,
        ("Member", member.id),
        {"email": member.email, "role": member.role},
    )
    await record_events(
        connection, member.workspace_id, actor, [(action, {"member": snapshots.member(member)})]
    )


async def update_member(
    db: Database,
    actor: audit.Actor,
    workspace_id: str,
    member_id: str,
    *,
    name: str | None = None,
    role: str | None = None,
    key_scopes: KeyScopes = None,
) -> Member:
    """Change a member's name or role; the last admin keeps the admin role. Only a
    Full-access key may make someone an admin or an admin an agent."""
    check = Validator()
    clean_name = check.text("name", name, MAX_NAME, required=True) if name is not None else None
    clean_role = _role(check, role, required=False)
    check.check()
    async with db.transaction() as connection:
        admins = await _locked_admins(connection, workspace_id) if clean_role else []
        member = await _locked_member(connection, workspace_id, member_id)
        changes = {
            key: value
            for key, value in (("name", clean_name), ("role", clean_role))
            if value is not None and getattr(member, key) != value
        }
        if not changes:
            return member
        if "role" in changes:
            _needs_every_scope(key_scopes, "Changing an admin's role or making an admin")
        if changes.get("role", ADMIN) != ADMIN:
            _keep_an_admin(admins, member, "role")
        row = await updated_row(
            connection, org_admins, MEMBER_COLUMNS, workspace_id, member.id, **changes
        )
        changed = member_of(row)
        before, after = snapshots.member(member), snapshots.member(changed)
        difference = snapshots.changes(before, after)
        await audit.record(
            connection,
            workspace_id,
            actor,
            "member.updated",
            ("Member", member.id),
            {key: value["to"] for key, value in difference.items()},
        )
        await record_events(
            connection,
            workspace_id,
            actor,
            [("member.updated", {"member": after, "changes": difference})],
        )
    return changed


async def remove_member(
    db: Database,
    actor: audit.Actor,
    workspace_id: str,
    member_id: str,
    *,
    key_scopes: KeyScopes = None,
) -> Member:
    """Remove a member: their settings-page sessions end with them, and the issues
    assigned to them become unassigned (their `updatedAt` moves; `member.removed` says it
    for all of them). The last admin cannot go; only a Full-access key removes an admin."""
    async with db.transaction() as connection:
        # The member's row before the issues: assignIssue reads it before it locks the
        # issue, so the two never wait for each other in a circle.
        admins = await _locked_admins(connection, workspace_id)
        member = await _locked_member(connection, workspace_id, member_id)
        if member.role == ADMIN:
            _needs_every_scope(key_scopes, "Removing an admin")
        _keep_an_admin(admins, member, "id")
        await connection.execute(
            update(issues)
            .where(
                issues.c.workspace_id == workspace_id,
                issues.c.assignee_id == member.id,
                issues.c.assignee_type == "member",
            )
            .values(assignee_type=None, assignee_id=None, updated_at=now())
        )
        await connection.execute(
            delete(org_admins).where(
                org_admins.c.workspace_id == workspace_id, org_admins.c.id == member.id
            )
        )
        await _record(connection, actor, "member.removed", member)
    return member
