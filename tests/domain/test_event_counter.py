"""When a write lists the workspace's endpoints (domain/events/log.py, `EventCounter`)."""

from __future__ import annotations

import pytest

from supportdesk.domain.events import EventCounter


@pytest.mark.parametrize(
    ("last", "seen", "endpoints", "lists"),
    [
        (12, 10, 0, False),  # PostgreSQL, nothing between the snapshot and the lock
        (12, 12, 0, False),  # SQLite reads the counter as the statement left it
        (12, 10, 1, True),  # an endpoint that the snapshot holds
        (12, 9, 0, True),  # a writer committed while this one waited: maybe an endpoint
        (12, 5, 0, True),
    ],
)
def test_the_endpoints_are_listed_unless_the_snapshot_shows_none_and_is_current(
    last: int, seen: int, endpoints: int, lists: bool
) -> None:
    counter = EventCounter.of((last, seen, endpoints), count=2)

    assert counter.may_deliver is lists
    assert counter.first == 11
