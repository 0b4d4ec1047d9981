"""What every resolver can reach: the caller, the database, per-request loaders."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import strawberry

from supportdesk.auth.principal import Principal
from supportdesk.db import Database
from supportdesk.domain.audit import Actor, key_actor
from supportdesk.domain.pagination import Cursors
from supportdesk.domain.webhooks.setup import WebhookSetup
from supportdesk.live import LiveEvents

if TYPE_CHECKING:
    from supportdesk.graphql.loaders import Loaders


@dataclass(slots=True)
class Context:
    db: Database
    principal: Principal
    request_id: str
    now: datetime
    cursors: Cursors
    client_ip: str | None = None
    webhooks: WebhookSetup | None = None
    # The address clients reach this server at (`https://desk.example.com`), for the URLs
    # an answer gives (attachments' upload and download), and the largest upload.
    base_url: str = ""
    attachment_max_bytes: int = 25 * 1024 * 1024
    # The process's live events, for subscriptions (graphql/event_subscription.py).
    live: LiveEvents | None = None
    _loaders: Loaders | None = field(default=None, repr=False)

    @property
    def workspace_id(self) -> str:
        return self.principal.workspace_id

    @property
    def actor(self) -> Actor:
        return key_actor(self.principal, self.client_ip)

    @property
    def loaders(self) -> Loaders:
        if self._loaders is None:
            from supportdesk.graphql.loaders import Loaders

            self._loaders = Loaders(self.db, self.workspace_id)
        return self._loaders


Info = strawberry.Info[Context, None]
