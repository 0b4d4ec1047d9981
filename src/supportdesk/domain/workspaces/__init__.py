"""Workspaces (tenants) and their first admin."""

from supportdesk.domain.workspaces.service import (
    InitialisedWorkspace,
    Workspace,
    get_workspace,
    init_workspace,
)

__all__ = ["InitialisedWorkspace", "Workspace", "get_workspace", "init_workspace"]
