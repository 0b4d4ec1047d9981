"""When a failed delivery is tried again (CONTRACT §11 "Delivery")."""

from __future__ import annotations

import random
from datetime import timedelta
from email.utils import format_datetime

import pytest

from supportdesk.dispatch.schedule import next_wait, retry_after_seconds, scheduled_wait
from supportdesk.domain.clock import now

SCHEDULE = (5.0, 300.0, 1800.0)


@pytest.mark.parametrize(("attempt", "base"), [(1, 5.0), (2, 300.0), (3, 1800.0)])
def test_each_failed_attempt_waits_its_entry_within_ten_percent(attempt: int, base: float) -> None:
    rng = random.Random(7)
    waits = [scheduled_wait(attempt, SCHEDULE, rng) for _ in range(500)]

    assert all(w is not None and base * 0.9 <= w <= base * 1.1 for w in waits)
    assert len({round(w or 0, 6) for w in waits}) > 100  # jittered, not one value


def test_after_the_last_entry_the_delivery_has_failed() -> None:
    assert scheduled_wait(len(SCHEDULE) + 1, SCHEDULE) is None
    assert next_wait(len(SCHEDULE) + 1, SCHEDULE, 503, "60", now()) is None


def test_attempts_count_from_one() -> None:
    with pytest.raises(ValueError, match="from 1"):
        scheduled_wait(0, SCHEDULE)


def test_retry_after_in_seconds_or_as_a_date() -> None:
    at = now().replace(microsecond=0)

    assert retry_after_seconds("120", at) == 120
    assert retry_after_seconds(format_datetime(at + timedelta(minutes=10), usegmt=True), at) == 600
    assert retry_after_seconds(format_datetime(at - timedelta(minutes=1), usegmt=True), at) == 0
    assert retry_after_seconds("soon", at) is None
    assert retry_after_seconds("", at) is None
    assert retry_after_seconds(None, at) is None


def test_retry_after_is_capped_at_a_day() -> None:
    assert retry_after_seconds(str(10 * 86_400), now()) == 86_400


@pytest.mark.parametrize("status", [429, 503])
def test_a_longer_retry_after_on_429_or_503_is_honoured(status: int) -> None:
    assert next_wait(1, SCHEDULE, status, "3600", now()) == 3600
    assert next_wait(1, SCHEDULE, status, str(2 * 86_400), now()) == 86_400


def test_a_shorter_retry_after_does_not_shorten_the_schedule() -> None:
    wait = next_wait(2, SCHEDULE, 429, "1", now(), random.Random(1))

    assert wait is not None and wait >= 270


@pytest.mark.parametrize("status", [500, 404, None])
def test_retry_after_on_other_answers_is_ignored(status: int | None) -> None:
    wait = next_wait(1, SCHEDULE, status, "3600", now())

    assert wait is not None and wait <= 5.5
