"""Members (docs/working-issues.md): the workspace's people, as the rest of the service sees
them. Admins log in to the settings page; agents are people issues can be assigned to."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from supportdesk.db import positional
from supportdesk.db.tables import org_admins

ADMIN = "admin"
AGENT = "agent"
ROLES = (ADMIN, AGENT)


@dataclass(frozen=True, slots=True)
class Member:
    id: str
    workspace_id: str
    email: str
    name: str
    role: str
    created_at: datetime


MEMBER_COLUMNS = (
    org_admins.c.id,
    org_admins.c.workspace_id,
    org_admins.c.email,
    org_admins.c.name,
    org_admins.c.role,
    org_admins.c.created_at,
)
member_of = positional(Member, MEMBER_COLUMNS)
