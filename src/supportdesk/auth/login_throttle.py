"""Throttling org-admin logins: per e-mail and per client address.

Failures are rows in the database, so every process sees the same count. While a subject
is over its limit, logins are refused before any password is checked, correct or not: a
guesser learns nothing, and the server spends no hashing on it.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, insert, select

from supportdesk.db import Database
from supportdesk.db.tables import login_failures


@dataclass(frozen=True, slots=True)
class ThrottleLimits:
    per_email: int
    per_address: int
    window: timedelta


def _subject(kind: str, value: str) -> str:
    # Hashed: the table need not hold e-mail or IP addresses in clear.
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()


class LoginThrottle:
    def __init__(self, db: Database, limits: ThrottleLimits) -> None:
        self.db = db
        self.limits = limits

    def _subjects(self, email: str, address: str | None) -> dict[str, int]:
        """Each subject with its limit."""
        subjects = {_subject("email", email.strip().casefold()): self.limits.per_email}
        if address:
            subjects[_subject("address", address)] = self.limits.per_address
        return subjects

    async def retry_after(self, email: str, address: str | None, at: datetime) -> int | None:
        """Seconds until another try is allowed, or None when a try is allowed now."""
        subjects = self._subjects(email, address)
        since = at - self.limits.window
        query = (
            select(
                login_failures.c.subject,
                func.count().label("failures"),
                func.min(login_failures.c.failed_at).label("oldest"),
            )
            .where(login_failures.c.subject.in_(subjects), login_failures.c.failed_at > since)
            .group_by(login_failures.c.subject)
        )
        async with self.db.read() as connection:
            rows = (await connection.execute(query)).all()
        waits = [
            (row.oldest + self.limits.window - at).total_seconds()
            for row in rows
            if row.failures >= subjects[row.subject]
        ]
        return max(1, math.ceil(max(waits))) if waits else None

    async def failed(self, email: str, address: str | None, at: datetime) -> None:
        subjects = list(self._subjects(email, address))
        async with self.db.transaction() as connection:
            await connection.execute(
                delete(login_failures).where(
                    login_failures.c.subject.in_(subjects),
                    login_failures.c.failed_at <= at - self.limits.window,
                )
            )
            await connection.execute(
                insert(login_failures), [{"subject": s, "failed_at": at} for s in subjects]
            )

    async def succeeded(self, email: str) -> None:
        """A right password clears the e-mail's count; the address keeps its own."""
        async with self.db.transaction() as connection:
            await connection.execute(
                delete(login_failures).where(
                    login_failures.c.subject == _subject("email", email.strip().casefold())
                )
            )
