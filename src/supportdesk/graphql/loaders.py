"""Per-request DataLoaders: relations load in one statement per batch, whatever the page
size. Each batch takes its own pooled connection, since sibling fields resolve at once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry.dataloader import DataLoader

from supportdesk.db import Database
from supportdesk.domain import api_keys, machine_users

K = TypeVar("K")
V = TypeVar("V")


class Loaders:
    def __init__(self, db: Database, workspace_id: str) -> None:
        self.db = db
        self.workspace_id = workspace_id
        self.machine_user = self._by_key(machine_users.get_machine_users)
        self.keys_of_machine_user = self._by_key(api_keys.keys_of_machine_users, default=list)

    def _by_key(
        self,
        fetch: Callable[[AsyncConnection, str, Sequence[Any]], Awaitable[dict[Any, Any]]],
        default: Callable[[], Any] | None = None,
    ) -> DataLoader[Any, Any]:
        async def load(keys: list[Any]) -> list[Any]:
            async with self.db.read() as connection:
                found = await fetch(connection, self.workspace_id, keys)
            return [found.get(key, default() if default else None) for key in keys]

        return DataLoader(load_fn=load)

    async def run(self, read: Callable[[AsyncConnection], Awaitable[V]]) -> V:
        """One read on a connection of its own (for root lists and counts)."""
        async with self.db.read() as connection:
            return await read(connection)
