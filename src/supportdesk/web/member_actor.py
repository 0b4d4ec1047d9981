"""Who acts when a member works issues in the inbox: the member, as events name them
(`actor.type: "member"`), not the settings page's org admin."""

from __future__ import annotations

from supportdesk.domain import audit
from supportdesk.web.endpoint import Page


def member_actor(page: Page) -> audit.Actor:
    member = page.me.admin
    return audit.Actor("member", member.id, member.email, page.client_address)
