"""One structured line per request on the `supportdesk.access` logger.

The line names the key by its prefix only (never the secret), and the workspace, the
operation and its cost when the GraphQL endpoint got that far. A client that went away
before its request had arrived whole is logged with status 499 (nginx's "client closed
request"): nothing was answered, and it is no server error. When metrics are on, the same
record, status and duration are counted (observability/metrics.py).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from supportdesk.http.logged_path import logged_path
from supportdesk.observability.metrics import RequestMetrics

logger = logging.getLogger("supportdesk.access")

CLIENT_CLOSED_REQUEST = 499


@dataclass(slots=True)
class AccessRecord:
    """What the endpoint learns about a request; it fills this in as it goes."""

    key_prefix: str | None = None
    workspace: str | None = None
    operation: str | None = None
    operation_type: str | None = None
    cost: int | None = None
    # The rate limit that refused the request (429): "key" or "failed_auth".
    rate_limited_by: str | None = None
    # Whether the database built the answer (graphql/compiled.py); None for no query.
    compiled: bool | None = None


def access_record(scope: Scope) -> AccessRecord:
    """The record of the request in `scope` (a fresh one outside the middleware)."""
    state: dict[str, Any] = scope.setdefault("state", {})
    record = state.get("access")
    if not isinstance(record, AccessRecord):
        record = state["access"] = AccessRecord()
    return record


# Enough to tell one client program from another; the rest is the client's to fill logs with.
MAX_USER_AGENT = 200


def _client(scope: Scope) -> str | None:
    """The client's address: a trusted proxy's X-Forwarded-For already applied."""
    client = scope.get("client")
    return str(client[0]) if client else None


def _user_agent(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"user-agent":
            return str(value.decode("latin-1")[:MAX_USER_AGENT])
    return None


class AccessLogMiddleware:
    def __init__(self, app: ASGIApp, metrics: RequestMetrics | None = None) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        record = access_record(scope)
        status = 500

        async def send_and_note_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note_status)
        except ClientDisconnect:
            # Ends here: raised on, uvicorn would log it at ERROR with a traceback.
            status = CLIENT_CLOSED_REQUEST
        finally:
            seconds = time.perf_counter() - started
            logger.info(
                "request",
                extra={
                    "fields": {
                        "request_id": scope["state"].get("request_id"),
                        "method": scope["method"],
                        "path": logged_path(scope),
                        "client": _client(scope),
                        "user_agent": _user_agent(scope),
                        "key_prefix": record.key_prefix,
                        "workspace": record.workspace,
                        "operation": record.operation,
                        "operation_type": record.operation_type,
                        "cost": record.cost,
                        "rate_limited_by": record.rate_limited_by,
                        "compiled": record.compiled,
                        "status": status,
                        "duration_ms": round(seconds * 1000, 2),
                    }
                },
            )
            if self.metrics is not None:
                self.metrics.finished(
                    logged_path(scope),
                    record.operation,
                    record.operation_type,
                    record.rate_limited_by,
                    status,
                    seconds,
                )
