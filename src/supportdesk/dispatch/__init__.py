"""Webhook delivery (docs/webhooks.md): the dispatcher role, a process of its own beside
`serve`'s workers, or `supportdesk dispatch` alone. Signing, the retry schedule, the lease-based
queue, the outcomes and the HTTP client are one module each."""

from supportdesk.dispatch.dispatcher import Dispatcher

__all__ = ["Dispatcher"]
