"""The pages people log in to: the agent inbox and, for admins, the settings. Server-rendered,
no JavaScript framework.

They call the same domain actions as the GraphQL mutations, never GraphQL itself."""

from supportdesk.web.app import web_routes

__all__ = ["web_routes"]
