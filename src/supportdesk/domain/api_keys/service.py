"""Creating, revoking and listing API keys."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, insert, select, update

from supportdesk.auth import keys as key_format
from supportdesk.auth.scopes import LEGACY_SCOPES, normalise_scopes, unknown_scopes
from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import api_keys, machine_users
from supportdesk.domain import audit
from supportdesk.domain.clock import now
from supportdesk.domain.counting import count_rows
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, FieldError, not_found
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.pagination import Page, PageRequest, page_of
from supportdesk.domain.per_parent import ChildCounts, ChildPages
from supportdesk.domain.validation import Validator


@dataclass(frozen=True, slots=True)
class ApiKey:
    id: str
    workspace_id: str
    machine_user_id: str
    name: str
    key_prefix: str
    scopes: tuple[str, ...]
    kind: str
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime | None
    revoked_at: datetime | None

    def status(self, at: datetime) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= at:
            return "expired"
        return "active"


@dataclass(frozen=True, slots=True)
class Granter:
    """The key that asks for a new key: it can pass on no more than it has, neither a
    scope it lacks nor a life beyond its own expiry."""

    scopes: frozenset[str]
    expires_at: datetime | None


@dataclass(frozen=True, slots=True)
class CreatedKey:
    """A new key and its secret: the only moment the secret exists outside the caller."""

    api_key: ApiKey
    secret: str


_COLUMNS = (
    api_keys.c.id,
    api_keys.c.workspace_id,
    api_keys.c.machine_user_id,
    api_keys.c.name,
    api_keys.c.key_prefix,
    api_keys.c.scopes,
    api_keys.c.kind,
    api_keys.c.created_at,
    api_keys.c.last_used_at,
    api_keys.c.expires_at,
    api_keys.c.revoked_at,
)


_SCOPES = [column.name for column in _COLUMNS].index("scopes")


def _key_of(row: Sequence[object]) -> ApiKey:
    """A key from a row of `_COLUMNS` (the key's fields, in order); its scopes are stored
    as one spaced string."""
    values = list(row[: len(_COLUMNS)])
    values[_SCOPES] = tuple(str(values[_SCOPES]).split())
    return ApiKey(*values)  # type: ignore[arg-type]


def _checked_scopes(
    requested: Iterable[str] | None, granter: Granter | None, check: Validator
) -> tuple[str, ...]:
    scopes = normalise_scopes(requested or ())
    if not scopes:
        check.fail("scopes", FieldCode.REQUIRED)
        check.check()
    unknown = unknown_scopes(scopes)
    if unknown:
        raise DomainError(ErrorCode.UNKNOWN_SCOPE, f"Unknown scopes: {', '.join(unknown)}.")
    if granter is not None:
        beyond = sorted(set(scopes) - granter.scopes)
        if beyond:
            raise DomainError(
                ErrorCode.SCOPE_ESCALATION,
                f"A key can only grant scopes it holds itself; missing: {', '.join(beyond)}.",
            )
    return scopes


def _capped_expiry(expires_at: datetime | None, granter: Granter | None) -> datetime | None:
    limit = granter.expires_at if granter is not None else None
    if limit is None:
        return expires_at
    if expires_at is None:
        return limit
    if expires_at > limit:
        raise DomainError(
            ErrorCode.VALIDATION_FAILED,
            "`expiresAt` is later than the expiry of the key making it"
            f" ({limit.isoformat()}); a key cannot outlive the key that made it.",
            [FieldError("expiresAt", FieldCode.INVALID)],
        )
    return expires_at


async def insert_api_key(
    connection: Connection,
    workspace_id: str,
    machine_user_id: str,
    name: str,
    scopes: tuple[str, ...],
    *,
    kind: key_format.KeyKind = "standard",
    expires_at: datetime | None = None,
) -> CreatedKey:
    moment = now()
    secret = key_format.generate_secret(kind)
    key = ApiKey(
        new_id("ApiKey", moment),
        workspace_id,
        machine_user_id,
        name,
        key_format.key_prefix(secret),
        scopes,
        kind,
        moment,
        None,
        expires_at,
        None,
    )
    await connection.execute(
        insert(api_keys).values(
            workspace_id=workspace_id,
            id=key.id,
            machine_user_id=machine_user_id,
            name=name,
            key_prefix=key.key_prefix,
            secret_hash=key_format.hash_secret(secret),
            scopes=" ".join(scopes),
            kind=kind,
            created_at=moment,
            expires_at=expires_at,
        )
    )
    return CreatedKey(key, secret)


async def create_api_key(
    db: Database,
    actor: audit.Actor,
    workspace_id: str,
    *,
    machine_user_id: str,
    name: str | None,
    scopes: Iterable[str] | None,
    expires_at: datetime | None = None,
    granter: Granter | None = None,
    legacy: bool = False,
) -> CreatedKey:
    """Make a key for a machine user of the workspace.

    `granter` is the key asking (None for an org admin or the CLI): a key can grant only
    the scopes it holds, and a key that expires makes keys that expire no later (without
    an `expires_at`, the new key gets the granter's). Legacy keys get `issues:create` alone.
    """
    check = Validator()
    clean_name = check.text("name", name, 100, required=True)
    if expires_at is not None and expires_at <= now():
        check.fail("expiresAt", FieldCode.INVALID, "expiresAt is in the future.")
    check.check()
    expires_at = _capped_expiry(expires_at, granter)
    granted = LEGACY_SCOPES if legacy else _checked_scopes(scopes, granter, check)
    assert clean_name is not None
    if not is_id_of(machine_user_id, "MachineUser"):
        raise not_found("Machine user")
    async with db.transaction() as connection:
        owner = await connection.scalar(
            select(machine_users.c.id).where(
                machine_users.c.workspace_id == workspace_id, machine_users.c.id == machine_user_id
            )
        )
        if owner is None:
            raise not_found("Machine user")
        created = await insert_api_key(
            connection,
            workspace_id,
            machine_user_id,
            clean_name,
            granted,
            kind="legacy" if legacy else "standard",
            expires_at=expires_at,
        )
        await audit.record(
            connection,
            workspace_id,
            actor,
            "api_key.created",
            ("ApiKey", created.api_key.id),
            {"name": clean_name, "scopes": list(granted), "key_prefix": created.api_key.key_prefix},
        )
        await _record_event(connection, actor, "api_key.created", created.api_key)
    return created


async def _record_event(connection: Connection, actor: audit.Actor, kind: str, key: ApiKey) -> None:
    """The key as `apiKeys` shows it: never its secret."""
    snapshot = snapshots.api_key(key, now())
    await record_events(connection, key.workspace_id, actor, [(kind, {"apiKey": snapshot})])


async def revoke_api_key(
    db: Database, actor: audit.Actor, workspace_id: str, key_id: str
) -> ApiKey:
    """Revoke now; revoking a revoked key succeeds and changes nothing."""
    if not is_id_of(key_id, "ApiKey"):
        raise not_found("API key")
    async with db.transaction() as connection:
        row = (
            await connection.execute(
                update(api_keys)
                .where(
                    api_keys.c.workspace_id == workspace_id,
                    api_keys.c.id == key_id,
                    api_keys.c.revoked_at.is_(None),
                )
                .values(revoked_at=now())
                .returning(*_COLUMNS)
            )
        ).first()
        if row is not None:
            await audit.record(
                connection,
                workspace_id,
                actor,
                "api_key.revoked",
                ("ApiKey", key_id),
                {"key_prefix": row.key_prefix},
            )
            revoked = _key_of(row)
            await _record_event(connection, actor, "api_key.revoked", revoked)
            return revoked
    existing = await get_api_keys(db, workspace_id, [key_id])
    if key_id not in existing:
        raise not_found("API key")
    return existing[key_id]


async def list_api_keys(
    db: Database, workspace_id: str, page: PageRequest, machine_user_id: str | None = None
) -> Page[ApiKey]:
    if not _names_a_machine_user(machine_user_id):
        return Page([], False)
    query = select(*_COLUMNS).where(api_keys.c.workspace_id == workspace_id)
    if machine_user_id is not None:
        query = query.where(api_keys.c.machine_user_id == machine_user_id)
    if page.after:
        query = query.where(api_keys.c.id > page.after)
    query = query.order_by(api_keys.c.id).limit(page.first + 1)
    async with db.read() as connection:
        rows = (await connection.execute(query)).all()
    return page_of([_key_of(row) for row in rows], page.first)


async def count_api_keys(
    db: Database, workspace_id: str, machine_user_id: str | None = None
) -> int:
    """How many keys the workspace (or one of its machine users) has."""
    if not _names_a_machine_user(machine_user_id):
        return 0
    conditions = [] if machine_user_id is None else [api_keys.c.machine_user_id == machine_user_id]
    return await count_rows(db, api_keys, workspace_id, *conditions)


def _names_a_machine_user(machine_user_id: str | None) -> bool:
    """No filter, or one that could match: a malformed id never reaches the database."""
    return machine_user_id is None or is_id_of(machine_user_id, "MachineUser")


async def get_api_keys(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, ApiKey]:
    query = select(*_COLUMNS).where(api_keys.c.workspace_id == workspace_id, api_keys.c.id.in_(ids))
    async with db.read() as connection:
        rows = (await connection.execute(query)).all()
    return {row.id: _key_of(row) for row in rows}


async def keys_of_machine_users(
    db: Database, workspace_id: str, machine_user_ids: Sequence[str]
) -> dict[str, list[ApiKey]]:
    """Every key of each machine user, oldest first, in one statement."""
    query = select(*_COLUMNS).where(
        api_keys.c.workspace_id == workspace_id, api_keys.c.machine_user_id.in_(machine_user_ids)
    )
    async with db.read() as connection:
        rows = (await connection.execute(query.order_by(api_keys.c.id))).all()
    grouped: dict[str, list[ApiKey]] = defaultdict(list)
    for row in rows:
        grouped[row.machine_user_id].append(_key_of(row))
    return grouped


_IN_WORKSPACE = api_keys.c.workspace_id == bindparam("workspace_id")
_OF_MACHINE_USERS = ChildPages(
    select(*_COLUMNS).where(_IN_WORKSPACE), api_keys.c.machine_user_id, api_keys.c.id, _key_of
)
_COUNT_OF_MACHINE_USERS = ChildCounts(api_keys, api_keys.c.machine_user_id, _IN_WORKSPACE)


async def key_pages_of_machine_users(
    db: Database, workspace_id: str, machine_user_ids: Sequence[str], page: PageRequest
) -> dict[str, Page[ApiKey]]:
    """The same page of each machine user's keys, oldest first, in one statement."""
    return await _OF_MACHINE_USERS.fetch(db, machine_user_ids, page, workspace_id=workspace_id)


async def count_keys_of_machine_users(
    db: Database, workspace_id: str, machine_user_ids: Sequence[str]
) -> dict[str, int]:
    return await _COUNT_OF_MACHINE_USERS.fetch(db, machine_user_ids, workspace_id=workspace_id)


async def workspace_of_key(db: Database, key_id: str) -> str:
    """The workspace a key belongs to (the operator's CLI works across workspaces)."""
    workspace_id = None
    if is_id_of(key_id, "ApiKey"):
        async with db.read() as connection:
            workspace_id = await connection.scalar(
                select(api_keys.c.workspace_id).where(api_keys.c.id == key_id)
            )
    if workspace_id is None:
        raise not_found("API key")
    return str(workspace_id)
