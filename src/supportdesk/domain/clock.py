"""The service's notion of now: UTC, millisecond precision (what the API shows)."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    moment = datetime.now(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)
