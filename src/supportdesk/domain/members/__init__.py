"""Members: the workspace's people, admins and agents (docs/working-issues.md)."""

from supportdesk.domain.members.actions import create_member, remove_member, update_member
from supportdesk.domain.members.models import ADMIN, AGENT, ROLES, Member
from supportdesk.domain.members.people import Person, get_people
from supportdesk.domain.members.queries import (
    count_members,
    get_members,
    list_members,
    members_by_name,
)

__all__ = [
    "ADMIN",
    "AGENT",
    "ROLES",
    "Member",
    "Person",
    "count_members",
    "create_member",
    "get_members",
    "get_people",
    "list_members",
    "members_by_name",
    "remove_member",
    "update_member",
]
