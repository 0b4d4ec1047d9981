"""Server-sent events framing (the HTML standard's `text/event-stream`): one message per
event, with `id` the sequence a client resumes from with `Last-Event-ID`; and the
graphql-sse protocol's messages."""

from __future__ import annotations

from typing import Any

import orjson

from supportdesk.domain.events import Event
from supportdesk.live.feed import Reset

MEDIA_TYPE = "text/event-stream"


def html_safe_json(value: Any) -> bytes:
    """`value` as JSON with `<`, `>` and `&` written as `\\u003c`, `\\u003e`, `\\u0026`: a
    JSON parser reads back the same strings, and the data is never HTML, even where a
    page puts it in raw (the inbox's htmx SSE extension, without inbox_live.js)."""
    data = orjson.dumps(value)
    return data.replace(b"&", b"\\u0026").replace(b"<", b"\\u003c").replace(b">", b"\\u003e")


def event_message(event: Event) -> bytes:
    """`id: <sequence>`, `event: <type>`, `data: <the event's JSON on one line>`."""
    data = html_safe_json(event.body())
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (event.sequence, event.type.encode(), data)


def reset_message(reset: Reset) -> bytes:
    # No `id`: the client's Last-Event-ID stays where it was until the next event.
    data = html_safe_json({"oldestSequence": reset.oldest_sequence})
    return b"event: reset\ndata: %s\n\n" % data


def comment(text: str) -> bytes:
    return b": %s\n\n" % text.encode()


# The graphql-sse protocol's messages (distinct connections mode): each payload of the
# subscription as `next`, then `complete` when it ends.
COMPLETE = b"event: complete\ndata:\n\n"


def next_message(payload: dict[str, Any]) -> bytes:
    return b"event: next\ndata: %s\n\n" % orjson.dumps(payload)


class EncodedEvents:
    """Each event's message encoded once per set of scopes that reads it, not once per
    stream: every stream of a process is sent the same few events at about the same time."""

    SIZE = 1024

    def __init__(self) -> None:
        self._encoded: dict[tuple[str, int, frozenset[str]], bytes] = {}

    def message(self, event: Event, scopes: frozenset[str]) -> bytes:
        """`event` as a key holding `scopes` sees it (already narrowed to them)."""
        key = (event.workspace_id, event.sequence, scopes)
        encoded = self._encoded.get(key)
        if encoded is None:
            if len(self._encoded) >= self.SIZE:
                del self._encoded[next(iter(self._encoded))]  # the oldest
            encoded = self._encoded[key] = event_message(event)
        return encoded
