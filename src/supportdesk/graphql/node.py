"""The Relay Node interface: every object with an id can be fetched with `node(id)`."""

from __future__ import annotations

import strawberry


@strawberry.interface(description="An object with a global, opaque id.")
class Node:
    id: strawberry.ID
