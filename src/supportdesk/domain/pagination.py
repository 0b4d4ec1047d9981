"""Keyset pagination shared by every list (docs/api.md)."""

from __future__ import annotations

import base64
import binascii
import hmac
from dataclasses import dataclass
from typing import Generic, TypeVar

from supportdesk.db.answers import CURSOR_MAC_BYTES, cursor_parameters, sign_cursor
from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.ids import is_id_of

DEFAULT_PAGE_SIZE = 25
MAX_PAGE_SIZE = 100

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PageRequest:
    """`first` items after the item whose sort key the cursor holds."""

    first: int
    after: str | None

    @classmethod
    def of(cls, first: int | None, after: str | None, cursors: Cursors, of: str) -> PageRequest:
        """A page of a list of `of` (a type name: "Issue"), after the item `after` names."""
        size = DEFAULT_PAGE_SIZE if first is None else first
        if size < 0 or size > MAX_PAGE_SIZE:
            raise InvalidArgument(f"`first` must be between 0 and {MAX_PAGE_SIZE}, got {size}.")
        return cls(size, cursors.decode(after, of) if after else None)


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    items: list[T]
    has_next: bool


_NOT_OURS = "`after` is not a cursor this API gave out."
_MAC_BYTES = CURSOR_MAC_BYTES
# A position is an id, or a relevance or an updatedAt and an id: far below this.
_MAX_CURSOR = 200


class Cursors:
    """Opaque cursors of one workspace's lists: an item's position (its id, or for a
    search its relevance and id, for issues by change their updatedAt and id) with an HMAC
    of it under the deployment's cursor key.

    A client can neither read a cursor as anything but a token nor make or alter one, and a
    cursor of one workspace is refused in another, so no value of ours is taken on trust.
    """

    __slots__ = ("_key", "_scope")

    def __init__(self, key: bytes, workspace_id: str) -> None:
        self._key = key
        self._scope = workspace_id.encode() + b"\x00"

    def _mac(self, payload: bytes) -> bytes:
        return hmac.digest(self._key, self._scope + payload, "sha256")[:_MAC_BYTES]

    def encode(self, position: str) -> str:
        return sign_cursor(self._key, self._scope, position)

    def signing_parameters(self) -> dict[str, bytes]:
        """What a compiled answer's SQL signs its cursors with (db/answers.py)."""
        return cursor_parameters(self._key, self._scope)

    def decode(self, cursor: str, of: str) -> str:
        """The position a cursor of ours holds in a list of `of` (a type name);
        InvalidArgument for anything else, a cursor of another list too."""
        if len(cursor) > _MAX_CURSOR:
            raise InvalidArgument(_NOT_OURS)
        try:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        except (binascii.Error, ValueError):
            raise InvalidArgument(_NOT_OURS) from None
        payload, mac = raw[:-_MAC_BYTES], raw[-_MAC_BYTES:]
        if not payload or not hmac.compare_digest(mac, self._mac(payload)):
            raise InvalidArgument(_NOT_OURS)
        position = payload.decode()  # we signed it, so it is text we encoded
        if not _names_a(position, of):
            raise InvalidArgument(_NOT_OURS)
        return position


def _names_a(position: str, type_name: str) -> bool:
    """Whether a position is one in a list of `type_name`: it ends with an item's id
    (after its relevance or its updatedAt), or for events is a sequence number."""
    if type_name == "Event":
        return position.isascii() and position.isdecimal()
    return is_id_of(position.rpartition(":")[2], type_name)


def page_of(rows: list[T], first: int) -> Page[T]:
    """Rows were fetched with limit first + 1; the extra one only says there is more."""
    return Page(rows[:first], len(rows) > first)
