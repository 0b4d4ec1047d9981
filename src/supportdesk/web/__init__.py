"""The settings page (Settings → API) for org admins: server-rendered, no JavaScript framework.

It calls the same domain services as the GraphQL mutations, never GraphQL itself."""

from supportdesk.web.app import settings_app

__all__ = ["settings_app"]
