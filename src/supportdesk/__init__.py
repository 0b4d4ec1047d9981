"""supportdesk: a self-hostable support-issue service with a GraphQL API."""

__version__ = "0.1.0"
API_VERSION = "2026-11-01"
