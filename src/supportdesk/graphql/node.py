"""The Relay Node interface: every object with an id can be fetched with `node(id)`."""

from __future__ import annotations

from typing import TypeVar

import strawberry
from strawberry.dataloader import DataLoader

from supportdesk.domain.errors import not_found
from supportdesk.domain.ids import is_id_of

T = TypeVar("T")


@strawberry.interface(description="An object with a global, opaque id.")
class Node:
    id: strawberry.ID


async def load_by_id(loader: DataLoader[str, T | None], id: strawberry.ID, type_name: str) -> T:
    """The object of `type_name` with this id; NOT_FOUND for a missing one or an id of
    another type (which the loader is not asked about)."""
    found = await loader.load(str(id)) if is_id_of(str(id), type_name) else None
    if found is None:
        raise not_found(type_name)
    return found
