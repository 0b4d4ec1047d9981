"""Members: the workspace's people, admins and agents (docs/working-issues.md)."""

from supportdesk.domain.members.actions import (
    AddedMember,
    add_member,
    create_member,
    invite_member,
    remove_member,
    update_member,
)
from supportdesk.domain.members.invitations import (
    Invitation,
    InvitationUnusable,
    Invited,
    accept_invitation,
    open_invitation,
)
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
    "AddedMember",
    "Invitation",
    "InvitationUnusable",
    "Invited",
    "Member",
    "Person",
    "accept_invitation",
    "add_member",
    "count_members",
    "create_member",
    "get_members",
    "get_people",
    "invite_member",
    "list_members",
    "members_by_name",
    "open_invitation",
    "remove_member",
    "update_member",
]
