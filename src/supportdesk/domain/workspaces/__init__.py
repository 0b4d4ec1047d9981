"""Workspaces (tenants) and their org admins."""

from supportdesk.domain.workspaces.service import (
    InitialisedWorkspace,
    OrgAdmin,
    Workspace,
    get_workspace,
    init_workspace,
)

__all__ = ["InitialisedWorkspace", "OrgAdmin", "Workspace", "get_workspace", "init_workspace"]
