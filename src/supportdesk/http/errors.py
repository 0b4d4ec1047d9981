"""The last line of defence: an exception that escapes a route answers a JSON
`INTERNAL_SERVER_ERROR` carrying the request id, never a traceback or Starlette's plain-text
500, and is logged here in full. A database that cannot be reached answers 503 with
Retry-After, which clients retry, and is logged in one line. A client that went away
mid-request is not an error: the access log records it (499)."""

from __future__ import annotations

import logging

import orjson
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from supportdesk.db import DatabaseUnavailable
from supportdesk.http.logged_path import logged_path

logger = logging.getLogger("supportdesk.http")

UNAVAILABLE_MESSAGE = "The service cannot reach its database; try again shortly."
# Seconds a client waits before it tries again when the database cannot be reached.
UNAVAILABLE_RETRY_AFTER = "5"


def internal_error_body(request_id: str | None, message: str = "Internal server error.") -> bytes:
    return orjson.dumps(
        {
            "errors": [
                {
                    "message": message,
                    "extensions": {"code": "INTERNAL_SERVER_ERROR", "requestId": request_id},
                }
            ]
        }
    )


def log_unavailable(error: DatabaseUnavailable, request_id: str | None, path: str) -> None:
    logger.warning(
        "database unavailable: %s",
        error,
        extra={"fields": {"request_id": request_id, "path": path}},
    )


class ErrorMaskingMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_and_note_start(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, send_and_note_start)
        except ClientDisconnect:
            raise  # nobody to answer, nothing broken
        except Exception as error:
            request_id = scope.get("state", {}).get("request_id")
            headers = [(b"content-type", b"application/json; charset=utf-8")]
            if isinstance(error, DatabaseUnavailable):
                log_unavailable(error, request_id, logged_path(scope))
                status, body = 503, internal_error_body(request_id, UNAVAILABLE_MESSAGE)
                headers.append((b"retry-after", UNAVAILABLE_RETRY_AFTER.encode()))
            else:
                logger.exception(
                    "unhandled error",
                    extra={"fields": {"request_id": request_id, "path": logged_path(scope)}},
                )
                status, body = 500, internal_error_body(request_id)
            if started:
                return  # too late for another answer; the connection ends short
            headers.append((b"content-length", str(len(body)).encode()))
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
