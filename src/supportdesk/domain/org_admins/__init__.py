"""Org admins: the people who log in to the settings page (e-mail and password)."""

from supportdesk.domain.org_admins.login_lock import record_login_lock
from supportdesk.domain.org_admins.service import Membership, OrgAdmin, verify_login
from supportdesk.domain.org_admins.sessions import (
    SeatInUse,
    end_admin_sessions,
    end_session,
    seats_still_in_use,
    session_membership,
    session_memberships,
    start_session,
)

__all__ = [
    "Membership",
    "OrgAdmin",
    "SeatInUse",
    "end_admin_sessions",
    "end_session",
    "record_login_lock",
    "seats_still_in_use",
    "session_membership",
    "session_memberships",
    "start_session",
    "verify_login",
]
