"""The older REST interface under /v1 (docs/rest-v1.md): a thin adapter, like graphql/,
over the same domain actions, keys, permission table and rate limits."""

from supportdesk.rest.routes import rest_mount

__all__ = ["rest_mount"]
