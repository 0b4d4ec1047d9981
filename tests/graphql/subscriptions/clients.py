"""Subscribing in the tests, over both transports, against the running server: a
graphql-transport-ws connection (the `websockets` client) and a graphql-sse stream (httpx),
each read into a queue so that a test waits for what it expects with a time-out."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
from typing import Any

import httpx
from httpx_sse import EventSource
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

EVENTS = "subscription($after: Int, $types: [String!]) { events(after: $after, types: $types) { id sequence type createdAt data } }"
# What a reader puts in its queue when the server ended the stream.
ENDED = "ended"


class WebSocketClient:
    """One graphql-transport-ws connection; `close_code` once the server closed it."""

    def __init__(self, base_url: str, key: str | None, *, payload: Any = None) -> None:
        url = base_url.replace("http://", "ws://") + "/graphql"
        self.socket: ClientConnection = connect(
            url,
            subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
            open_timeout=5,
            legacy=True,  # a connection object of its own, closed by `close`
        )
        init = payload if payload is not None else {"authorization": f"Bearer {key}"}
        self.send({"type": "connection_init", "payload": init})
        self.close_code: int | None = None
        self.acknowledged = self.receive() == {"type": "connection_ack"}

    def send(self, message: dict[str, Any]) -> None:
        self.socket.send(json.dumps(message))

    def receive(self, timeout: float = 5) -> dict[str, Any] | None:
        """The next message, or None once the server closed the connection."""
        try:
            message: dict[str, Any] = json.loads(self.socket.recv(timeout=timeout))
        except ConnectionClosed as closed:
            self.close_code = closed.rcvd.code if closed.rcvd else None
            return None
        return message

    def nothing_within(self, seconds: float) -> bool:
        """Whether no message came for `seconds` and the connection is still open."""
        try:
            message = self.socket.recv(timeout=seconds)
        except TimeoutError:
            return True
        except ConnectionClosed:
            return False
        raise AssertionError(f"unexpected message: {message!r}")

    def subscribe(
        self, id: str, variables: dict[str, Any] | None = None, query: str = EVENTS
    ) -> None:
        self.send(
            {
                "id": id,
                "type": "subscribe",
                "payload": {"query": query, "variables": variables or {}},
            }
        )

    def next_payloads(self, count: int, timeout: float = 5) -> list[dict[str, Any]]:
        """The payloads of the next `count` `next` messages (fails on anything else)."""
        found = []
        for _ in range(count):
            message = self.receive(timeout)
            assert message is not None and message["type"] == "next", message
            found.append(message["payload"])
        return found

    def close(self) -> None:
        self.socket.close()

    def __enter__(self) -> WebSocketClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class SseSubscription:
    """One graphql-sse subscription (POST /graphql/stream): its status, and its messages
    as (event, JSON data or None) in a queue; the JSON body when it was refused."""

    def __init__(
        self,
        base_url: str,
        key: str | None,
        variables: dict[str, Any] | None = None,
        *,
        query: str = EVENTS,
        headers: dict[str, str] | None = None,
        method: str = "POST",
    ) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=httpx.Timeout(10, read=None))
        auth = {"Authorization": f"Bearer {key}"} if key else {}
        request = self.http.build_request(
            method,
            "/graphql/stream",
            json={"query": query, "variables": variables or {}} if method == "POST" else None,
            headers={"Accept": "text/event-stream", **auth, **(headers or {})},
        )
        self.response = self.http.send(request, stream=True)
        self.status = self.response.status_code
        self.headers = self.response.headers
        self.items: queue.Queue[Any] = queue.Queue()
        self.body: Any = None
        if self.status != 200:
            self.response.read()
            self.body = self.response.json()
            self.close()
            return
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for message in EventSource(self.response).iter_sse():
                self.items.put((message.event, json.loads(message.data) if message.data else None))
        except httpx.HTTPError:
            pass  # closed by the test
        finally:
            self.items.put(ENDED)

    def next(self, timeout: float = 5) -> tuple[str, Any]:
        item = self.items.get(timeout=timeout)
        assert item != ENDED, "the stream ended"
        return item  # type: ignore[no-any-return]

    def next_payloads(self, count: int, timeout: float = 5) -> list[dict[str, Any]]:
        found = []
        for _ in range(count):
            event, data = self.next(timeout)
            assert event == "next", (event, data)
            found.append(data)
        return found

    def ended(self, timeout: float = 5) -> bool:
        return self.items.get(timeout=timeout) == ENDED

    def close(self) -> None:
        network = self.response.extensions.get("network_stream")
        connected = network.get_extra_info("socket") if network is not None else None
        if connected is not None:
            with contextlib.suppress(OSError):
                connected.shutdown(socket.SHUT_RDWR)
        self.response.close()
        self.http.close()

    def __enter__(self) -> SseSubscription:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def sequence_of(payload: dict[str, Any]) -> int:
    return int(payload["data"]["events"]["sequence"])


def type_of(payload: dict[str, Any]) -> str:
    return str(payload["data"]["events"]["type"])
