"""Following the event log live: GET /v1/events/stream (docs/events-stream.md).

`Client.iter_events()` reads the server-sent events, and when the connection ends (a
network failure, a server restart, a reader too slow for the server) connects again with
`Last-Event-ID`, so that no event is missed or repeated."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import httpx

from .errors import ApiError, Forbidden, InvalidRequest, Unauthenticated
from .webhooks import WebhookEvent

PATH = "/v1/events/stream"
# The server sends a comment every 15 s: this long without a line, the connection is dead.
READ_TIMEOUT_SECONDS = 45.0
FIRST_WAIT_SECONDS = 0.5


def reconnect_wait(failures: int, max_wait: float) -> float:
    """Seconds to wait after `failures` failed connections in a row: doubling from the
    first wait up to `max_wait`, however long the server stays away."""
    return min(max_wait, FIRST_WAIT_SECONDS * 2.0 ** min(failures - 1, 32))


@dataclass(frozen=True)
class StreamReset:
    """Events after the position asked for were removed by retention (30 days): the stream
    goes on from `oldest_sequence`. What came between is lost; resynchronise from the API."""

    oldest_sequence: int


@dataclass
class _Message:
    id: str | None = None
    event: str = "message"
    data: str = ""


def server_sent_events(lines: Iterable[str]) -> Iterator[_Message]:
    """The messages of a text/event-stream, as the HTML standard parses them (the fields
    this server sends: id, event, data; comments are skipped)."""
    message, data = _Message(), list[str]()
    for line in lines:
        if not line:
            if data:
                message.data = "\n".join(data)
                yield message
            message, data = _Message(), []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            message.event = value
        elif name == "id":
            message.id = value


def _refusal(response: httpx.Response) -> ApiError:
    try:
        error = response.json()["error"]
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        code, message = "HTTP_ERROR", f"HTTP {response.status_code}"
    kind = {401: Unauthenticated, 403: Forbidden, 400: InvalidRequest}.get(
        response.status_code, ApiError
    )
    request_id = response.headers.get("x-request-id")
    return kind(code, message, status=response.status_code, request_id=request_id)


class EventStream:
    """Iterates the workspace's events (and StreamReset) after `after` for ever."""

    def __init__(
        self,
        http: httpx.Client,
        base_url: str,
        after: int | None,
        types: Iterable[str] | None,
        max_wait: float,
    ) -> None:
        self._http = http
        self._url = base_url.rstrip("/").removesuffix("/graphql") + PATH
        self._params = {"types": ",".join(types)} if types is not None else {}
        self.last_sequence = after
        self._max_wait = max_wait

    def __iter__(self) -> Iterator[WebhookEvent | StreamReset]:
        failures = 0
        while True:
            try:
                for item in self._connection():
                    failures = 0
                    yield item
            except httpx.TransportError:
                pass  # connect again, resuming
            failures += 1
            time.sleep(reconnect_wait(failures, self._max_wait))

    def _connection(self) -> Iterator[WebhookEvent | StreamReset]:
        headers = {"Accept": "text/event-stream"}
        if self.last_sequence is not None:
            headers["Last-Event-ID"] = str(self.last_sequence)
        timeout = httpx.Timeout(READ_TIMEOUT_SECONDS, connect=10.0)
        with self._http.stream(
            "GET", self._url, params=self._params, headers=headers, timeout=timeout
        ) as response:
            if response.status_code == 429 or response.status_code >= 500:
                raise httpx.RemoteProtocolError(f"HTTP {response.status_code}; again later")
            if response.status_code != 200:
                response.read()
                raise _refusal(response)
            for message in server_sent_events(response.iter_lines()):
                if message.event == "reset":
                    yield StreamReset(int(json.loads(message.data)["oldestSequence"]))
                    continue
                event = WebhookEvent.model_validate_json(message.data)
                self.last_sequence = event.sequence
                yield event
