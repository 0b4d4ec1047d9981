"""The DateTime scalar: RFC 3339, UTC, milliseconds (CONTRACT section 1)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from supportdesk.graphql.scalars import parse_datetime, serialise_datetime


def test_a_datetime_is_written_in_utc_with_milliseconds_and_z() -> None:
    moment = datetime(2026, 11, 22, 13, 45, 7, 123456, tzinfo=UTC)

    assert serialise_datetime(moment) == "2026-11-22T13:45:07.123Z"


def test_other_offsets_are_written_as_utc() -> None:
    moment = datetime(2026, 11, 22, 15, 45, 7, 5000, tzinfo=timezone(timedelta(hours=2)))

    assert serialise_datetime(moment) == "2026-11-22T13:45:07.005Z"


def test_whole_seconds_still_carry_three_digits() -> None:
    assert serialise_datetime(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == (
        "2026-01-02T03:04:05.000Z"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-22T13:45:07.123Z", datetime(2026, 11, 22, 13, 45, 7, 123000, tzinfo=UTC)),
        ("2026-11-22T13:45:07Z", datetime(2026, 11, 22, 13, 45, 7, tzinfo=UTC)),
        ("2026-11-22T15:45:07.123+02:00", datetime(2026, 11, 22, 13, 45, 7, 123000, tzinfo=UTC)),
        ("2026-11-22t13:45:07.123z", datetime(2026, 11, 22, 13, 45, 7, 123000, tzinfo=UTC)),
    ],
)
def test_rfc3339_input_is_read_as_utc(text: str, expected: datetime) -> None:
    parsed = parse_datetime(text)

    assert parsed == expected
    assert parsed.utcoffset() == timedelta(0)


@pytest.mark.parametrize("value", ["2026-11-22T13:45:07", "tomorrow", "", 1700000000, None])
def test_input_without_an_offset_or_not_a_date_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match=r"DateTime|RFC 3339|time zone"):
        parse_datetime(value)


def test_writing_then_reading_gives_the_same_millisecond() -> None:
    moment = datetime(2026, 11, 22, 13, 45, 7, 123000, tzinfo=UTC)

    assert parse_datetime(serialise_datetime(moment)) == moment


def test_years_before_1000_keep_four_digits() -> None:
    assert serialise_datetime(datetime(5, 1, 1, tzinfo=UTC)) == "0005-01-01T00:00:00.000Z"
