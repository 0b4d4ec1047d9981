"""What a compiled answer writes, as plain data: the JSON objects of one root field's
answer, the keys of each in order, and where each key's value comes from (a column of the
row, the rows a relation of the row leads to, a fact of a page).

The GraphQL planner (graphql/compiled.py) makes a shape for each root field and names
every key; db/answer_sql.py renders a shape as one statement and names none: keys are
data to it, written into the SQL as they are given.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Kind(Enum):
    """How a column's value is written."""

    VALUE = "value"  # text or a number, as stored
    TIME = "time"  # an instant: RFC 3339, UTC, milliseconds
    BOOLEAN = "boolean"


class Fact(Enum):
    """What a page knows of itself (db/answer_sql.py's `page_json`)."""

    TOTAL = "total"  # how many rows the whole list holds, across pages
    HAS_NEXT = "has_next"
    HAS_PREVIOUS = "has_previous"  # always false: a page continues after a cursor only
    START_CURSOR = "start_cursor"
    END_CURSOR = "end_cursor"
    CURSOR = "cursor"  # the cursor of one row of the page (in `Items`)


@dataclass(frozen=True, slots=True)
class Text:
    """A constant string (the name of the object's type)."""

    value: str


@dataclass(frozen=True, slots=True)
class Column:
    """A column of the row."""

    name: str
    kind: Kind = Kind.VALUE


@dataclass(frozen=True, slots=True)
class Row:
    """The JSON object of one row of `table`."""

    table: str
    keys: tuple[tuple[str, Value], ...]


@dataclass(frozen=True, slots=True)
class Related:
    """The row a relation of the row leads to, or null. A relation whose row may be in
    one of several tables (a kind column names which) has one `Row` per table."""

    relation: str
    rows: tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class Listed:
    """Every row a relation of the row leads to, as an array in the relation's order."""

    relation: str
    row: Row


@dataclass(frozen=True, slots=True)
class Items:
    """The rows of a page as an array, each an object of these keys."""

    keys: tuple[tuple[str, Text | Fact | Row], ...]


@dataclass(frozen=True, slots=True)
class Facts:
    """An object of facts of the page."""

    keys: tuple[tuple[str, Text | Fact], ...]


@dataclass(frozen=True, slots=True)
class Paged:
    """One page of rows of `table`, of a relation of the row (or of a root list:
    `relation` None). `number` names the page's bound parameters: `parameter(number,
    "first")`, "limit", "after", and one per column the relation's rows are narrowed by."""

    table: str
    relation: str | None
    number: int
    keys: tuple[tuple[str, Text | Fact | Items | Facts], ...]


Value = Text | Column | Related | Listed | Paged


@dataclass(frozen=True, slots=True)
class One:
    """A root field's answer: the row of `row.table` whose `column` equals the bound
    parameter `parameter`, in the bound workspace."""

    row: Row
    column: str
    parameter: str


@dataclass(frozen=True, slots=True)
class Given:
    """Which arguments a request gives (not null), by page number: what a statement's
    conditions depend on. Their values are bound apart."""

    present: frozenset[tuple[int, str]]

    def has(self, number: int, argument: str) -> bool:
        return (number, argument) in self.present


def parameter(number: int, argument: str) -> str:
    """The name an argument of the page (or root field) numbered `number` is bound as."""
    return f"a{number}_{argument}"
