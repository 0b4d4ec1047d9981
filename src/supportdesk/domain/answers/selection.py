"""What a compiled answer selects: the fields of a read document, resolved against the
schema (fragments merged, aliases kept), as plain data the statements are built from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TYPENAME = "__typename"


@dataclass(frozen=True, slots=True)
class Picked:
    """One key of an object in the answer.

    `field` is the schema's field name (or `__typename`); `number` is unique in its
    document and names the field's bound parameters (`argument_name(number, "first")`).
    An object field has its own picks per concrete type it may be (`objects`, one entry
    for an object type, one per member of a union)."""

    key: str
    field: str
    number: int
    arguments: frozenset[str] = frozenset()
    objects: dict[str, tuple[Picked, ...]] | None = None

    def only(self) -> tuple[Picked, ...]:
        """The picks of an object (not union) field."""
        assert self.objects is not None and len(self.objects) == 1
        return next(iter(self.objects.values()))


def argument_name(number: int, argument: str) -> str:
    return f"a{number}_{argument}"


@dataclass(frozen=True, slots=True)
class Given:
    """Which arguments a request gives (not null), by field number: what the statement's
    conditions depend on. Values are bound separately."""

    present: frozenset[tuple[int, str]]

    def has(self, picked: Picked, argument: str) -> bool:
        return (picked.number, argument) in self.present


Parameters = dict[str, Any]
