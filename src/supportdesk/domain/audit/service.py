"""Audit events are written inside the transaction of the change they describe."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select

from supportdesk.auth.principal import Principal
from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import audit_events
from supportdesk.domain.clock import now
from supportdesk.domain.counting import count_rows
from supportdesk.domain.ids import new_id
from supportdesk.domain.pagination import Page, PageRequest, page_of


@dataclass(frozen=True, slots=True)
class Actor:
    """Who acts: a machine user's key, an org admin on the settings page, or the CLI."""

    type: str
    id: str | None
    label: str
    ip_address: str | None = None
    # The plain name events show (a machine user's, without the key); the label otherwise.
    name: str | None = None


def key_actor(principal: Principal, ip_address: str | None) -> Actor:
    """A request made with an API key: its machine user acts; the label names the key."""
    return Actor(
        "machine_user",
        principal.machine_user_id,
        f"{principal.machine_user_name} ({principal.key_prefix})",
        ip_address,
        principal.machine_user_name,
    )


CLI_ACTOR = Actor("cli", None, "command line")
# Work the service does on its own (retention, disabling a failing endpoint).
SYSTEM_ACTOR = Actor("system", None, "supportdesk")


@dataclass(frozen=True, slots=True)
class AuditEvent:
    id: str
    workspace_id: str
    action: str
    actor_type: str
    actor_id: str | None
    actor_label: str
    target_type: str
    target_id: str
    ip_address: str | None
    data: dict[str, Any]
    created_at: datetime


async def record(
    connection: Connection,
    workspace_id: str,
    actor: Actor,
    action: str,
    target: tuple[str, str],
    data: dict[str, Any] | None = None,
) -> None:
    """Append one event; `target` is (type name, id)."""
    moment = now()
    await connection.execute(
        insert(audit_events).values(
            workspace_id=workspace_id,
            id=new_id("AuditEvent", moment),
            action=action,
            actor_type=actor.type,
            actor_id=actor.id,
            actor_label=actor.label,
            target_type=target[0],
            target_id=target[1],
            ip_address=actor.ip_address,
            data=data or {},
            created_at=moment,
        )
    )


async def list_audit_events(
    db: Database,
    workspace_id: str,
    page: PageRequest,
    target_types: Sequence[str] | None = None,
) -> Page[AuditEvent]:
    """Newest first: an audit log is read from the top. `target_types` narrows it to
    events about those kinds of things (e.g. "ApiKey", "MachineUser")."""
    query = select(audit_events).where(audit_events.c.workspace_id == workspace_id)
    if target_types is not None:
        query = query.where(audit_events.c.target_type.in_(target_types))
    if page.after:
        query = query.where(audit_events.c.id < page.after)
    query = query.order_by(audit_events.c.id.desc()).limit(page.first + 1)
    async with db.read() as connection:
        rows = (await connection.execute(query)).mappings().all()
    return page_of([AuditEvent(**row) for row in rows], page.first)


async def count_audit_events(db: Database, workspace_id: str) -> int:
    return await count_rows(db, audit_events, workspace_id)


async def get_audit_events(
    db: Database, workspace_id: str, ids: list[str]
) -> dict[str, AuditEvent]:
    query = select(audit_events).where(
        audit_events.c.workspace_id == workspace_id, audit_events.c.id.in_(ids)
    )
    async with db.read() as connection:
        rows = (await connection.execute(query)).mappings().all()
    return {row["id"]: AuditEvent(**row) for row in rows}
