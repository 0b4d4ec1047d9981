"""Which endpoints a write queues deliveries for (domain/events/log.py, `EventCounter`)."""

from __future__ import annotations

import pytest

from supportdesk.domain.events import EventCounter


@pytest.mark.parametrize(
    ("last", "seen", "current"),
    [
        (12, 10, True),  # PostgreSQL, nothing between the snapshot and the lock
        (12, 12, True),  # SQLite reads the counter as the statement left it
        (12, 9, False),  # a writer committed while this one waited: maybe an endpoint
        (12, 5, False),
    ],
)
def test_the_endpoints_read_with_the_lock_hold_unless_a_writer_came_between(
    last: int, seen: int, current: bool
) -> None:
    counter = EventCounter.of((last, seen, None), count=2)

    assert counter.current is current
    assert counter.endpoints == ()
    assert counter.first == 11


def test_the_endpoints_come_as_the_statement_lists_them() -> None:
    listed = "whk_01:issue.created message.created;whk_02:"

    counter = EventCounter.of((3, 2, listed), count=1)

    assert counter.endpoints == (
        ("whk_01", "issue.created message.created"),
        ("whk_02", ""),
    )
