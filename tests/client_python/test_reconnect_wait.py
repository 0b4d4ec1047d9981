"""The event stream's reconnection delay: doubling, capped, whatever the run of failures."""

from __future__ import annotations

from supportdesk_client.live import FIRST_WAIT_SECONDS, reconnect_wait


def test_the_wait_doubles_from_the_first_up_to_the_cap() -> None:
    waits = [reconnect_wait(failures, max_wait=30.0) for failures in range(1, 9)]

    assert waits == [FIRST_WAIT_SECONDS * 2**n for n in range(6)] + [30.0, 30.0]


def test_a_server_away_for_thousands_of_tries_keeps_the_cap() -> None:
    """A client left reconnecting for hours: no overflow, the cap holds."""
    assert reconnect_wait(5_000, max_wait=0.5) == 0.5
    assert reconnect_wait(100_000, max_wait=60.0) == 60.0
