"""Bearer-key authentication (docs/http-and-limits.md, docs/security.md).

The header is parsed and the secret's shape and checksum checked before any database
work; a well-formed key then costs one indexed statement, which also brings the
workspace and machine user the rest of the request needs. A process remembers the
keys it has authenticated (`KnownKeys`: who a key is never changes), but never whether
one is still active: a request answered for a remembered key runs its statement only
while `key_still_active` holds in it, so a revocation or an expiry holds on the very next
request in every process.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, bindparam, or_, select, update

from supportdesk.auth.keys import hash_secret, kind_of_wellformed
from supportdesk.auth.principal import Principal
from supportdesk.db import Database
from supportdesk.db.reads import Read
from supportdesk.db.tables import api_keys, machine_users, workspaces

LAST_USED_RESOLUTION = timedelta(minutes=1)


class AuthenticationFailed(Exception):
    """Why a request is not authenticated: missing | malformed | invalid | revoked | expired."""

    MESSAGES = {
        "missing": "Send an API key: `Authorization: Bearer <API_KEY>`.",
        "malformed": "The Authorization header does not hold a supportdesk API key.",
        "invalid": "The API key is not valid.",
        "revoked": "The API key has been revoked.",
        "expired": "The API key has expired.",
    }

    def __init__(self, reason: str, message: str | None = None) -> None:
        super().__init__(message or self.MESSAGES[reason])
        self.reason = reason


# What is wrong with a malformed header, each for the mistake people make.
_TWO_HEADERS = "Send one Authorization header, not several."
_NOT_BEARER = "Use the Bearer scheme: `Authorization: Bearer <API_KEY>`."
_NO_KEY_AFTER_BEARER = (
    "The Authorization header holds `Bearer` and no key: is the variable meant to hold it empty?"
)
_NOT_A_KEY = (
    "The Authorization header does not hold a supportdesk API key: a key starts `svc_mk_` "
    "(or `svc_live_`), and a typo or a cut breaks its checksum."
)


class _KeyRow(NamedTuple):
    id: str
    workspace_id: str
    key_prefix: str
    kind: str
    scopes: str
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None
    machine_user_id: str
    machine_user_name: str
    workspace_name: str


# Built once and read straight on the driver (`Database.fetch`): on every request, building
# the statement and SQLAlchemy's execution layer would cost more than the lookup itself.
_LOOKUP_STATEMENT = (
    select(
        api_keys.c.id,
        api_keys.c.workspace_id,
        api_keys.c.key_prefix,
        api_keys.c.kind,
        api_keys.c.scopes,
        api_keys.c.expires_at,
        api_keys.c.revoked_at,
        api_keys.c.last_used_at,
        api_keys.c.machine_user_id,
        machine_users.c.name.label("machine_user_name"),
        workspaces.c.name.label("workspace_name"),
    )
    .join(
        machine_users,
        (machine_users.c.workspace_id == api_keys.c.workspace_id)
        & (machine_users.c.id == api_keys.c.machine_user_id),
    )
    .join(workspaces, workspaces.c.id == api_keys.c.workspace_id)
    .where(api_keys.c.secret_hash == bindparam("secret_hash"))
)
assert list(_KeyRow._fields) == [column.name for column in _LOOKUP_STATEMENT.selected_columns]
_LOOKUP = Read(_LOOKUP_STATEMENT, lambda row: _KeyRow(*row))


def bearer_secret(authorization: Sequence[str]) -> str:
    """The secret in the request's `Authorization: Bearer <secret>` header, shape and
    checksum checked. `authorization` is every such header the request carries: more than
    one is malformed, since a proxy that reads another than we do would disagree about who
    is calling."""
    if len(authorization) > 1:
        raise AuthenticationFailed("malformed", _TWO_HEADERS)
    if not authorization or not authorization[0]:
        raise AuthenticationFailed("missing")
    scheme, _, secret = authorization[0].strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer":
        raise AuthenticationFailed("malformed", _NOT_BEARER)
    if not secret:
        raise AuthenticationFailed("malformed", _NO_KEY_AFTER_BEARER)
    if kind_of_wellformed(secret) is None:
        raise AuthenticationFailed("malformed", _NOT_A_KEY)
    return secret


def bearer_hash(authorization: Sequence[str]) -> str:
    """The hash of the request's secret (`bearer_secret`), as keys are stored and known."""
    return hash_secret(bearer_secret(authorization))


async def authenticate(
    db: Database, secret_hash: str, at: datetime, known: KnownKeys | None = None
) -> tuple[Principal, datetime | None]:
    """The principal of the active key whose secret has this hash (`bearer_hash`), and
    when the key was last recorded as used. An active key is remembered in `known`."""
    rows = await db.fetch(_LOOKUP, secret_hash=secret_hash)
    if not rows:
        raise AuthenticationFailed("invalid")
    row = rows[0]
    if row.revoked_at is not None:
        raise AuthenticationFailed("revoked")
    if row.expires_at is not None and row.expires_at <= at:
        raise AuthenticationFailed("expired")
    principal = Principal(
        workspace_id=row.workspace_id,
        workspace_name=row.workspace_name,
        key_id=row.id,
        key_prefix=row.key_prefix,
        key_kind=row.kind,
        scopes=frozenset(row.scopes.split()),
        expires_at=row.expires_at,
        machine_user_id=row.machine_user_id,
        machine_user_name=row.machine_user_name,
    )
    if known is not None:
        known.remember(secret_hash, principal, row.last_used_at)
    return principal, row.last_used_at


def key_still_active() -> ColumnElement[bool]:
    """The key of the bound `key_id` (in the bound `workspace_id`) is neither revoked nor
    expired at the bound `key_checked_at`: the condition a statement answered for a
    remembered key reads under, so that it checks the key itself (no row otherwise)."""
    return (
        (api_keys.c.workspace_id == bindparam("workspace_id"))
        & (api_keys.c.id == bindparam("key_id"))
        & api_keys.c.revoked_at.is_(None)
        & or_(
            api_keys.c.expires_at.is_(None),
            api_keys.c.expires_at > bindparam("key_checked_at", type_=api_keys.c.expires_at.type),
        )
    )


def key_check_parameters(principal: Principal, at: datetime) -> dict[str, Any]:
    """The values `key_still_active` binds, besides the workspace's."""
    return {"key_id": principal.key_id, "key_checked_at": at}


class KeyNoLongerActive(Exception):
    """The key asking was revoked or expired (or is gone) when a statement checked it."""


class KnownKeys:
    """The keys this process has authenticated, by the hash of their secret: who each is,
    and when it was last recorded as used. Bounded: the first remembered goes first (and
    is remembered again at its next lookup)."""

    LIMIT = 10_000

    def __init__(self) -> None:
        self._known: dict[str, tuple[Principal, datetime | None]] = {}

    def remember(
        self, secret_hash: str, principal: Principal, last_used_at: datetime | None
    ) -> None:
        self._known[secret_hash] = (principal, last_used_at)
        if len(self._known) > self.LIMIT:
            del self._known[next(iter(self._known))]

    def get(self, secret_hash: str) -> tuple[Principal, datetime | None] | None:
        """A remembered key's principal and last use."""
        return self._known.get(secret_hash)

    def forget(self, secret_hash: str) -> None:
        self._known.pop(secret_hash, None)


def needs_last_used_write(last_used_at: datetime | None, at: datetime) -> bool:
    return last_used_at is None or at - last_used_at >= LAST_USED_RESOLUTION


async def record_last_used(db: Database, principal: Principal, at: datetime) -> None:
    """At most one write a minute per key, across every process: the condition is in SQL."""
    async with db.transaction() as connection:
        await connection.execute(
            update(api_keys)
            .where(
                api_keys.c.workspace_id == principal.workspace_id,
                api_keys.c.id == principal.key_id,
                or_(
                    api_keys.c.last_used_at.is_(None),
                    api_keys.c.last_used_at <= at - LAST_USED_RESOLUTION,
                ),
            )
            .values(last_used_at=at)
        )


async def is_still_active(db: Database, principal: Principal, at: datetime) -> bool:
    """Whether the principal's key is neither revoked nor expired at `at`: for a request
    that outlives its authentication (a live stream)."""
    query = select(api_keys.c.id).where(key_still_active())
    parameters = {"workspace_id": principal.workspace_id, **key_check_parameters(principal, at)}
    async with db.read() as connection:
        return await connection.scalar(query, parameters) is not None


async def still_active_keys(
    db: Database, principals: Sequence[Principal], at: datetime
) -> set[str]:
    """The ids of those principals' keys that are neither revoked nor expired at `at`: one
    statement for all of a process's live streams."""
    if not principals:
        return set()
    query = select(api_keys.c.id).where(
        api_keys.c.workspace_id.in_({p.workspace_id for p in principals}),
        api_keys.c.id.in_({p.key_id for p in principals}),
        api_keys.c.revoked_at.is_(None),
        or_(api_keys.c.expires_at.is_(None), api_keys.c.expires_at > at),
    )
    async with db.read() as connection:
        return set((await connection.scalars(query)).all())
