"""Events: every change, recorded in its own transaction, read in sequence order and sent
to webhook endpoints (docs/webhooks.md)."""

from supportdesk.domain.events import snapshots
from supportdesk.domain.events.catalogue import (
    EVENT_READ_SCOPES,
    EVENT_TYPES,
    TEST_EVENT_TYPE,
    read_scope,
    readable_types,
    unknown_types,
)
from supportdesk.domain.events.log import (
    EVENT_COUNTER,
    MOVE_EVENT_COUNTER,
    Event,
    EventCounter,
    actor_of,
    record_events,
    subscribes,
)
from supportdesk.domain.events.visibility import as_seen_by, hides_people

__all__ = [
    "EVENT_COUNTER",
    "EVENT_READ_SCOPES",
    "EVENT_TYPES",
    "MOVE_EVENT_COUNTER",
    "TEST_EVENT_TYPE",
    "Event",
    "EventCounter",
    "actor_of",
    "as_seen_by",
    "hides_people",
    "read_scope",
    "readable_types",
    "record_events",
    "snapshots",
    "subscribes",
    "unknown_types",
]
