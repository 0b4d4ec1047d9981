"""The service's notion of now: UTC, millisecond precision (what the API shows)."""

from __future__ import annotations

from datetime import UTC, datetime


def rfc3339(value: datetime) -> str:
    """An instant as the API writes it: RFC 3339 in UTC with milliseconds."""
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    # isoformat is several times cheaper than strftime; drop its "+00:00" for "Z".
    return value.isoformat(timespec="milliseconds")[:-6] + "Z"


def now() -> datetime:
    moment = datetime.now(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)
