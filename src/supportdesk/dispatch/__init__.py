"""Webhook delivery (CONTRACT §11): the dispatcher each `serve` process runs beside its
requests, and `supportdesk dispatch` alone. Signing, the retry schedule, the lease-based
queue, the outcomes and the HTTP client are one module each."""

from supportdesk.dispatch.dispatcher import Dispatcher

__all__ = ["Dispatcher"]
