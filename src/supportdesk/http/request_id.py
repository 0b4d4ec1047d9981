"""Every answer carries `X-Request-Id`: the caller's, when it is sane, or a new one."""

from __future__ import annotations

import os
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_SANE = re.compile(r"\A[A-Za-z0-9._-]{1,64}\Z")


def incoming_or_new(headers: list[tuple[bytes, bytes]]) -> str:
    for name, value in headers:
        if name == b"x-request-id":
            text = value.decode("latin-1")
            if _SANE.match(text):
                return text
    return os.urandom(16).hex()  # 128 random bits, as uuid4's hex but for its fixed digits


class RequestIdMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = incoming_or_new(scope["headers"])
        state: dict[str, Any] = scope.setdefault("state", {})
        state["request_id"] = request_id

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", request_id.encode())]
            await send(message)

        await self.app(scope, receive, send_with_id)
