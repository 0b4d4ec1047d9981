"""The last line of defence: an exception that escapes a route answers a JSON
`INTERNAL_SERVER_ERROR` carrying the request id, never a traceback or Starlette's plain-text
500, and is logged here in full. A client that went away mid-request is not an error: the
access log records it (499)."""

from __future__ import annotations

import logging

import orjson
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from supportdesk.http.logged_path import logged_path

logger = logging.getLogger("supportdesk.http")


def internal_error_body(request_id: str | None) -> bytes:
    return orjson.dumps(
        {
            "errors": [
                {
                    "message": "Internal server error.",
                    "extensions": {"code": "INTERNAL_SERVER_ERROR", "requestId": request_id},
                }
            ]
        }
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
        except Exception:
            request_id = scope.get("state", {}).get("request_id")
            logger.exception(
                "unhandled error",
                extra={"fields": {"request_id": request_id, "path": logged_path(scope)}},
            )
            if started:
                return  # too late for another answer; the connection ends short
            body = internal_error_body(request_id)
            await send(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [
                        (b"content-type", b"application/json; charset=utf-8"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
