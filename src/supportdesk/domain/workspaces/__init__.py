"""Workspaces (tenants) and their org admins."""

from supportdesk.domain.org_admins import OrgAdmin
from supportdesk.domain.workspaces.service import (
    InitialisedWorkspace,
    Workspace,
    get_workspace,
    init_workspace,
)

__all__ = ["InitialisedWorkspace", "OrgAdmin", "Workspace", "get_workspace", "init_workspace"]
