"""What the webhook writers need from the deployment: the key that seals secrets and the
address policy. Made once per process from the settings."""

from __future__ import annotations

from dataclasses import dataclass

from supportdesk.auth.secret_box import SecretBox
from supportdesk.auth.server_key import ServerKey
from supportdesk.domain.webhooks.endpoints import EndpointPolicy


@dataclass(frozen=True, slots=True)
class WebhookSetup:
    server_key: ServerKey
    policy: EndpointPolicy

    async def box(self) -> SecretBox | None:
        """None when no key may seal secrets (PostgreSQL without SUPPORTDESK_SECRET_KEY)."""
        return await self.server_key.secret_box()
