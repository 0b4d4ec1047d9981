"""Org admins: the people who log in to the settings page (e-mail and password)."""

from supportdesk.domain.org_admins.service import (
    ROLES,
    Membership,
    OrgAdmin,
    create_org_admin,
    get_membership,
    verify_login,
)

__all__ = ["ROLES", "Membership", "OrgAdmin", "create_org_admin", "get_membership", "verify_login"]
