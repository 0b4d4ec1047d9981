"""Keyset pagination shared by every list (CONTRACT section 5)."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Generic, TypeVar

from supportdesk.domain.errors import InvalidArgument

DEFAULT_PAGE_SIZE = 25
MAX_PAGE_SIZE = 100

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PageRequest:
    """`first` items after the item whose sort key the cursor holds."""

    first: int
    after: str | None

    @classmethod
    def of(cls, first: int | None, after: str | None) -> PageRequest:
        size = DEFAULT_PAGE_SIZE if first is None else first
        if size < 0 or size > MAX_PAGE_SIZE:
            raise InvalidArgument(f"`first` must be between 0 and {MAX_PAGE_SIZE}, got {size}.")
        return cls(size, decode_cursor(after) if after else None)


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    items: list[T]
    has_next: bool


def encode_cursor(key: str) -> str:
    return base64.urlsafe_b64encode(f"c1:{key}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidArgument("`after` is not a cursor this API gave out.") from None
    # Keys we encode are printable; anything else (a NUL above all) must not reach SQL.
    if not text.startswith("c1:") or len(text) > 200 or not text.isprintable():
        raise InvalidArgument("`after` is not a cursor this API gave out.")
    return text[3:]


def page_of(rows: list[T], first: int) -> Page[T]:
    """Rows were fetched with limit first + 1; the extra one only says there is more."""
    return Page(rows[:first], len(rows) > first)
