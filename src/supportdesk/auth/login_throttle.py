"""Throttling org-admin logins: per (client address, e-mail) pair, per e-mail, per address.

The pair's limit is the tight one: it stops one client guessing one person's password.
An e-mail alone gets a much looser limit, because anyone can send wrong passwords for a
known e-mail: were that the tight limit, a handful of guesses from anywhere would lock the
real person out. It still caps a guesser who spreads over many addresses. The address limit
stops one client trying many e-mails.

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
    per_address_and_email: int
    per_email: int
    per_address: int
    window: timedelta


def _subject(kind: str, value: str) -> str:
    # Hashed: the table need not hold e-mail or IP addresses in clear.
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()


def _email_subject(email: str) -> str:
    return _subject("email", email.strip().casefold())


def _pair_subject(email: str, address: str | None) -> str:
    return _subject("pair", f"{address or ''} {email.strip().casefold()}")


class LoginThrottle:
    def __init__(self, db: Database, limits: ThrottleLimits) -> None:
        self.db = db
        self.limits = limits

    def _subjects(self, email: str, address: str | None) -> dict[str, int]:
        """Each subject with its limit. Without a known address every client shares the
        pair's count: the tight limit then holds per e-mail, as nothing tells clients apart."""
        subjects = {
            _pair_subject(email, address): self.limits.per_address_and_email,
            _email_subject(email): self.limits.per_email,
        }
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

    async def failed(self, email: str, address: str | None, at: datetime) -> bool:
        """Count a wrong password; True when this one locked the e-mail itself (its loose
        limit reached, from whatever addresses), which is worth telling its admins."""
        subjects = list(self._subjects(email, address))
        email_subject = _email_subject(email)
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
            # Counted in the transaction of the insert, so one failure sees the count reach
            # the limit (on PostgreSQL, failures for one e-mail committing at the same instant
            # may both see it, or neither: one audit event too many or too few, never a
            # missed lock, which retry_after decides from the rows).
            failures = await connection.scalar(
                select(func.count())
                .select_from(login_failures)
                .where(
                    login_failures.c.subject == email_subject,
                    login_failures.c.failed_at > at - self.limits.window,
                )
            )
        return bool(failures == self.limits.per_email)

    async def succeeded(self, email: str, address: str | None) -> None:
        """A right password clears the e-mail's count and the pair's; the address keeps its
        own (it may be guessing other e-mails)."""
        subjects = [_pair_subject(email, address), _email_subject(email)]
        async with self.db.transaction() as connection:
            await connection.execute(
                delete(login_failures).where(login_failures.c.subject.in_(subjects))
            )
