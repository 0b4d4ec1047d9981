"""The pages people log in to: the agent inbox and, for admins, the settings. Server-rendered,
no JavaScript framework.

They call the same domain actions as the GraphQL mutations, never GraphQL itself."""

from supportdesk.web.app import not_found_anywhere, web_routes

__all__ = ["not_found_anywhere", "web_routes"]
