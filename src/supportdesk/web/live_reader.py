"""A member's reading of the workspace's events on the inbox's live stream: what the
member may see, and what ends the stream (the login ending, the member removed)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from supportdesk.db import Database
from supportdesk.domain.events import EVENT_READ_SCOPES, EVENT_TYPES
from supportdesk.domain.members.models import ADMIN
from supportdesk.domain.org_admins import SeatInUse, seats_still_in_use
from supportdesk.live import ActiveWatch

# What only Settings shows: an agent, who gets 403 there, does not see their events either.
SETTINGS_SCOPES = frozenset(
    {"machine_users:manage", "api_keys:manage", "webhooks:manage", "mailboxes:manage"}
)

# The messages a page's `#live-events` takes (htmx's `sse-swap`, inbox/_live.html): every
# type, and `reset`; static/inbox_live.js decides which of them a page refreshes on.
LIVE_TYPES = ",".join((*EVENT_TYPES, "reset"))


@dataclass(frozen=True, slots=True)
class MemberReader:
    """A live.Reader: the member's workspace, under the scopes of the member's role."""

    workspace_id: str
    scopes: frozenset[str]


def member_scopes(role: str) -> frozenset[str]:
    """An admin reads every event of the workspace; an agent every one but Settings'."""
    return EVENT_READ_SCOPES if role == ADMIN else EVENT_READ_SCOPES - SETTINGS_SCOPES


def login_watch(db: Database) -> ActiveWatch[SeatInUse]:
    """Ends the streams of a login that ended or expired, or whose member was removed."""

    async def still_in_use(seats: Sequence[SeatInUse]) -> set[str]:
        return await seats_still_in_use(db, seats)

    return ActiveWatch(still_in_use, lambda seat: seat.identity)
