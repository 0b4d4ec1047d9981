"""Which endpoints a write queues deliveries for (domain/events/log.py, `EventCounter`)."""

from __future__ import annotations

import pytest

from supportdesk.domain.events import EventCounter


@pytest.mark.parametrize(
    ("generation", "seen", "current"),
    [
        (4, 4, True),  # no endpoint changed between the snapshot and the lock
        (5, 4, False),  # one did, committed while this writer waited for the lock
        (7, 4, False),
    ],
)
def test_the_endpoints_read_with_the_lock_hold_unless_an_endpoint_changed_between(
    generation: int, seen: int, current: bool
) -> None:
    counter = EventCounter.of((12, generation, seen, None), count=2)

    assert counter.current is current
    assert counter.endpoints == ()
    assert counter.first == 11


def test_the_endpoints_come_as_the_statement_lists_them() -> None:
    listed = "whk_01:issue.created message.created;whk_02:"

    counter = EventCounter.of((3, 1, 1, listed), count=1)

    assert counter.endpoints == (
        ("whk_01", "issue.created message.created"),
        ("whk_02", ""),
    )
