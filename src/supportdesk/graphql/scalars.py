"""Scalars: DateTime as RFC 3339 UTC with milliseconds (docs/api.md)."""

from __future__ import annotations

from datetime import UTC, datetime

import strawberry

from supportdesk.domain.clock import rfc3339

serialise_datetime = rfc3339


def parse_datetime(value: object) -> datetime:
    if not isinstance(value, str):
        raise ValueError("DateTime must be an RFC 3339 string, e.g. 2026-11-22T13:45:07.123Z")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"{value!r} is not an RFC 3339 date-time") from None
    if parsed.tzinfo is None:
        raise ValueError("DateTime needs a time zone offset, e.g. Z")
    return parsed.astimezone(UTC)


DateTime = strawberry.scalar(
    name="DateTime",
    description="An instant, RFC 3339 in UTC with milliseconds, e.g. 2026-11-22T13:45:07.123Z",
    serialize=serialise_datetime,
    parse_value=parse_datetime,
)
