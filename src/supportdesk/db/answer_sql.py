"""Compiled answers as SQL: a shape (db/answer_shapes.py) rendered as one statement whose
single row and column is the answer's JSON as text, compiled once and run on the driver.

A row's object is built from a `source`: a table, alias or sub-select whose columns are
named as the table names them. Columns are read off it; each relation is a sub-select
correlated to it, in the order, with the conditions and the page size of the executor's
batch reads (domain/*/queries.py, domain/per_parent.py), so that both answer the same. A
root list wraps the very page and count statements its executor resolver runs
(domain/lists.py).

Every statement is read only while a guard holds (`guarded`): the caller's condition, bound
by name, and no row otherwise. The keys of every object are the shape's, written in as
literals (db/answers.py checks each is a plain name).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    FromClause,
    Select,
    Table,
    and_,
    bindparam,
    case,
    false,
    func,
    literal,
    null,
    select,
)
from sqlalchemy.exc import DBAPIError

from supportdesk.db import Database
from supportdesk.db.answer_shapes import (
    Column,
    Fact,
    Facts,
    Given,
    Items,
    Kind,
    Listed,
    One,
    Paged,
    Related,
    Row,
    Text,
    Value,
    parameter,
)
from supportdesk.db.answers import (
    as_text,
    json_boolean,
    json_items,
    json_object,
    json_value,
    rfc3339,
    signed_cursor,
    too_deep,
)
from supportdesk.db.compiled import Compiled
from supportdesk.db.kept import Kept
from supportdesk.db.tables import (
    accounts,
    articles,
    contacts,
    issue_labels,
    issues,
    labels,
    machine_users,
    messages,
    org_admins,
)

logger = logging.getLogger("supportdesk.answers")

# The tables whose rows an answer writes, by name.
TABLES: dict[str, Table] = {
    table.name: table
    for table in (issues, messages, contacts, accounts, articles, labels, org_admins, machine_users)
}

# Every alias and sub-select here is anonymous: SQLAlchemy names each uniquely in the
# statement. A name used twice (a page inside another's) would make an inner sub-select
# see the nearer one of the two, not the source it is correlated to.


def columns_of(table: str) -> frozenset[str]:
    """The columns of a table an answer may write; none for a table it does not."""
    found = TABLES.get(table)
    return frozenset(found.c.keys()) if found is not None else frozenset()


def row_json(row: Row, source: FromClause, given: Given) -> ColumnElement[Any]:
    """The JSON object of one row of `source` (a row of `row.table`)."""
    return json_object([(key, _value(row.table, value, source, given)) for key, value in row.keys])


def _value(table: str, value: Value, source: FromClause, given: Given) -> ColumnElement[Any]:
    if isinstance(value, Text):
        return literal(value.value)
    if isinstance(value, Column):
        return _column(source, value)
    relation = RELATIONS[table, value.relation or ""]
    assert isinstance(value, relation.yields), (table, value)
    return json_value(relation.render(value, source, given))


def _column(source: FromClause, column: Column) -> ColumnElement[Any]:
    found = source.c[column.name]
    if column.kind is Kind.TIME:
        return rfc3339(found)
    if column.kind is Kind.BOOLEAN:
        return json_boolean(found)
    return found


def _in_workspace_of(table: FromClause, source: FromClause) -> ColumnElement[bool]:
    return table.c.workspace_id == source.c.workspace_id


def _one(
    row: Row, source: FromClause, given: Given, id_column: ColumnElement[Any]
) -> ColumnElement[Any]:
    """The object of the row of `row.table` whose id `id_column` (of the source) holds,
    or null."""
    found = TABLES[row.table].alias()
    return (
        select(row_json(row, found, given))
        .where(_in_workspace_of(found, source), found.c.id == id_column)
        .correlate(source)
        .scalar_subquery()
    )


def _to_one(id_column: str) -> Render:
    """A relation to one row of one table, by the id in `id_column`."""

    def render(value: Any, source: FromClause, given: Given) -> ColumnElement[Any]:
        (row,) = value.rows
        return _one(row, source, given, source.c[id_column])

    return render


def _to_one_of(kind_column: str, id_column: str, kinds: dict[str, str]) -> Render:
    """A relation to one row of the table `kind_column` names (`kinds`: its values and
    their tables), by the id in `id_column`."""

    def render(value: Any, source: FromClause, given: Given) -> ColumnElement[Any]:
        rows = {row.table: row for row in value.rows}
        whens = [
            (
                source.c[kind_column] == kind,
                json_value(_one(rows[table], source, given, source.c[id_column])),
            )
            for kind, table in kinds.items()
            if table in rows
        ]
        if not whens:  # no table of the relation is asked for: an empty object for each
            whens = [(source.c[kind_column] == kind, json_object([])) for kind in kinds]
        return case(*whens, else_=null())

    return render


@dataclass(frozen=True, slots=True)
class Children:
    """The rows of one page of a parent: `rows` selects the child table's columns
    (conditions correlated to the parent included), in id order (`descending`: newest
    first)."""

    rows: Select[Any]
    total: ColumnElement[Any]
    descending: bool = False
    # `rows` is already one page (past the cursor, ordered, limited): a root list's, as
    # the domain reads it.
    paged: bool = False


def page_json(
    paged: Paged, children: Children, source: FromClause | None, given: Given
) -> ColumnElement[Any]:
    """A page of `children` (the bound `first` of this page, past its bound `after`), its
    rows' cursors and its facts, as one sub-select."""
    number = paged.number
    first: BindParameter[int] = bindparam(parameter(number, "first"))
    order_key = children.rows.selected_columns.id
    rows = children.rows
    if not children.paged:
        if given.has(number, "after"):
            after: BindParameter[str] = bindparam(parameter(number, "after"))
            rows = rows.where(order_key < after if children.descending else order_key > after)
        rows = rows.order_by(order_key.desc() if children.descending else order_key).limit(
            bindparam(parameter(number, "limit"))
        )
    if source is not None:
        rows = rows.correlate(source)
    page = rows.subquery()
    order = page.c.id.desc() if children.descending else page.c.id
    position = func.row_number().over(order_by=order).label("position_in_page")
    # Ordered as the numbering is, not by the number: the window's input is already in
    # that order, so no Sort of the page (its texts and all) follows it.
    numbered_select = select(page, position).order_by(order)
    if source is not None:
        numbered_select = numbered_select.correlate(source)
    numbered = numbered_select.subquery()
    in_page = numbered.c.position_in_page <= first
    cursor = signed_cursor(numbered.c.id)
    # The page is in id order (every compiled list's cursor is an id): its last row holds
    # its greatest id (least, newest first), its first row the other.
    newest, oldest = func.max(numbered.c.id), func.min(numbered.c.id)
    last, first_row = (oldest, newest) if children.descending else (newest, oldest)
    facts: dict[Fact, ColumnElement[Any]] = {
        Fact.TOTAL: children.total,
        Fact.HAS_NEXT: json_boolean(func.count() > first),
        Fact.HAS_PREVIOUS: json_boolean(false()),
        Fact.END_CURSOR: signed_cursor(last.filter(in_page)),
        Fact.START_CURSOR: signed_cursor(first_row.filter(in_page)),
    }

    def item(value: Text | Fact | Row) -> ColumnElement[Any]:
        if isinstance(value, Text):
            return literal(value.value)
        if isinstance(value, Row):
            return row_json(value, numbered, given)
        assert value is Fact.CURSOR
        return cursor

    def fact(value: Text | Fact) -> ColumnElement[Any]:
        return literal(value.value) if isinstance(value, Text) else facts[value]

    pairs: list[tuple[str, ColumnElement[Any]]] = []
    for key, part in paged.keys:
        if isinstance(part, Items):
            items = json_object([(k, item(v)) for k, v in part.keys])
            pairs.append((key, json_items(items, in_page)))
        elif isinstance(part, Facts):
            pairs.append((key, json_object([(k, fact(v)) for k, v in part.keys])))
        else:
            pairs.append((key, fact(part)))
    # Aggregates give one row even for an empty page; without one, no rows are read.
    answer = select(json_object(pairs))
    if _reads_rows(paged):
        answer = answer.select_from(numbered)
    if source is not None:
        answer = answer.correlate(source)
    return answer.scalar_subquery()


_ROW_FACTS = frozenset({Fact.HAS_NEXT, Fact.END_CURSOR, Fact.START_CURSOR})


def _reads_rows(paged: Paged) -> bool:
    """Whether a page's JSON reads its rows: their items, or a fact of them."""
    for _, part in paged.keys:
        if isinstance(part, Items) or part in _ROW_FACTS:
            return True
        if isinstance(part, Facts) and any(fact in _ROW_FACTS for _, fact in part.keys):
            return True
    return False


def _count(rows: Select[Any], source: FromClause) -> ColumnElement[Any]:
    counted = rows.correlate(source).subquery()
    return select(func.count()).select_from(counted).correlate(source).scalar_subquery()


def _thread(value: Any, source: FromClause, given: Given) -> ColumnElement[Any]:
    row = messages.alias()
    rows = select(*row.c).where(_in_workspace_of(row, source), row.c.issue_id == source.c.id)
    total: ColumnElement[Any] = source.c.message_count
    if given.has(value.number, "visibility"):
        rows = rows.where(row.c.visibility == bindparam(parameter(value.number, "visibility")))
        total = _count(rows.correlate(source), source)
    return page_json(value, Children(rows.correlate(source), total), source, given)


def _children(table: Table, parent_column: str) -> Render:
    """A page of the rows of `table` whose `parent_column` holds the row's id."""

    def render(value: Any, source: FromClause, given: Given) -> ColumnElement[Any]:
        row = table.alias()
        rows = select(*row.c).where(
            _in_workspace_of(row, source), row.c[parent_column] == source.c.id
        )
        children = Children(rows.correlate(source), _count(rows, source))
        return page_json(value, children, source, given)

    return render


def _issues_of_account(value: Any, source: FromClause, given: Given) -> ColumnElement[Any]:
    # An issue belongs to the account its requester belongs to now.
    row, asker = issues.alias(), contacts.alias()
    rows = (
        select(*row.c)
        .select_from(
            row.join(
                asker,
                and_(asker.c.workspace_id == row.c.workspace_id, asker.c.id == row.c.requester_id),
            )
        )
        .where(_in_workspace_of(row, source), asker.c.account_id == source.c.id)
    )
    children = Children(rows.correlate(source), _count(rows, source))
    return page_json(value, children, source, given)


def _labels_of_issue(value: Any, source: FromClause, given: Given) -> ColumnElement[Any]:
    label, carried = labels.alias(), issue_labels.alias()
    numbered = (
        select(*label.c)
        .select_from(
            carried.join(
                label,
                and_(
                    label.c.workspace_id == carried.c.workspace_id, label.c.id == carried.c.label_id
                ),
            )
        )
        .where(_in_workspace_of(carried, source), carried.c.issue_id == source.c.id)
        .order_by(label.c.name_normalized, label.c.id)
        .correlate(source)
        .subquery()
    )
    items = json_items(row_json(value.row, numbered, given), literal(True))
    return select(items).select_from(numbered).correlate(source).scalar_subquery()


Render = Callable[[Any, FromClause, Given], ColumnElement[Any]]


@dataclass(frozen=True, slots=True)
class Relation:
    """A relation of a table's rows: what it yields (the row it leads to, all its rows,
    or a page of them), the tables of those rows, how it is rendered, and the columns a
    page of it may be narrowed by (each bound by its name)."""

    yields: type[Related | Listed | Paged]
    leads_to: frozenset[str]
    render: Render
    narrowed_by: frozenset[str] = frozenset()


def _relation(
    yields: type[Related | Listed | Paged],
    leads_to: str | dict[str, str],
    render: Render,
    narrowed_by: frozenset[str] = frozenset(),
) -> Relation:
    tables = frozenset({leads_to} if isinstance(leads_to, str) else leads_to.values())
    return Relation(yields, tables, render, narrowed_by)


# The table a `<kind>_type` column's value names, as the domain writes it.
_PERSON_KINDS = {"member": "org_admins", "machine_user": "machine_users"}
_AUTHOR_KINDS = {"contact": "contacts", **_PERSON_KINDS}

# Every relation an answer may follow, by its table and name.
RELATIONS: dict[tuple[str, str], Relation] = {
    ("issues", "messages"): _relation(Paged, "messages", _thread, frozenset({"visibility"})),
    ("issues", "requester"): _relation(Related, "contacts", _to_one("requester_id")),
    ("issues", "merged_into"): _relation(Related, "issues", _to_one("merged_into")),
    ("issues", "labels"): _relation(Listed, "labels", _labels_of_issue),
    ("issues", "assignee"): _relation(
        Related, _PERSON_KINDS, _to_one_of("assignee_type", "assignee_id", _PERSON_KINDS)
    ),
    ("messages", "author"): _relation(
        Related, _AUTHOR_KINDS, _to_one_of("author_type", "author_id", _AUTHOR_KINDS)
    ),
    ("contacts", "account"): _relation(Related, "accounts", _to_one("account_id")),
    ("contacts", "issues"): _relation(Paged, "issues", _children(issues, "requester_id")),
    ("accounts", "contacts"): _relation(Paged, "contacts", _children(contacts, "account_id")),
    ("accounts", "issues"): _relation(Paged, "issues", _issues_of_account),
}


def guarded(statement: Select[Any], guard: ColumnElement[bool]) -> Select[Any]:
    """`statement`'s single value, read only while `guard` holds: no row otherwise."""
    return select(statement.scalar_subquery()).where(guard)


def one_statement(one: One, given: Given, guard: ColumnElement[bool]) -> Select[Any]:
    """The answer of one row by a column's value, in the bound `workspace_id`."""
    row = TABLES[one.row.table].alias("root")
    found = select(as_text(row_json(one.row, row, given))).where(
        row.c.workspace_id == bindparam("workspace_id"),
        row.c[one.column] == bindparam(one.parameter),
    )
    return guarded(found, guard)


class PageStatements(Protocol):
    """A root list's page (ordered, limited, plus one row) and count, as its executor
    resolver runs them, the values they run with, and what names them (None: built for
    one request, which no compiled answer wraps)."""

    @property
    def rows(self) -> Select[Any]: ...

    @property
    def count(self) -> Select[Any]: ...

    @property
    def values(self) -> dict[str, Any]: ...

    @property
    def shape(self) -> Hashable | None: ...


def page_statement(
    paged: Paged,
    statements: PageStatements,
    descending: bool,
    given: Given,
    guard: ColumnElement[bool],
) -> Select[Any]:
    """The answer of a root list's page, around its own statements."""
    children = Children(statements.rows, statements.count.scalar_subquery(), descending, paged=True)
    return guarded(select(as_text(page_json(paged, children, None, given))), guard)


class GuardFailed(Exception):
    """The statement's guard did not hold when it ran: it gave no row."""


class AnswerTooDeep(Exception):
    """The database refused the statement for how deeply it nests (SQLite's parser has a
    fixed depth)."""


class Answers:
    """Compiled answers read while `guard` holds: statements compiled once per dialect,
    shape and given arguments (a document sent by keys of other scopes makes a plan of
    its own, and the same statements), and run straight on the driver."""

    def __init__(self, guard: ColumnElement[bool]) -> None:
        self._guard = guard
        self._kept: Kept[Hashable, Compiled] = Kept(512)

    def one(self, shape: One) -> OneAnswer:
        return OneAnswer(self, shape)

    def page(self, shape: Paged) -> PageAnswer:
        return PageAnswer(self, shape)

    async def run(
        self,
        db: Database,
        key: Hashable,
        make: Callable[[ColumnElement[bool]], Select[Any]],
        parameters: dict[str, Any],
    ) -> str | None:
        """The answer's JSON (None for null); raises GuardFailed and AnswerTooDeep."""
        compiled = self._kept.get((db.dialect, key), lambda: db.compile(make(self._guard)))
        try:
            rows = await db.fetch_compiled(compiled, **parameters)
        except DBAPIError as error:
            if too_deep(error):
                logger.info("compiled answer nested past the database's depth")
                raise AnswerTooDeep from error
            raise
        if not rows:
            raise GuardFailed
        answer: str | None = rows[0][0]
        return answer


class OneAnswer:
    def __init__(self, answers: Answers, shape: One) -> None:
        self._answers = answers
        self.shape = shape
        self._key = repr(shape)  # what its SQL is made of, hashed once

    async def run(self, db: Database, given: Given, parameters: dict[str, Any]) -> str | None:
        def make(guard: ColumnElement[bool]) -> Select[Any]:
            return one_statement(self.shape, given, guard)

        return await self._answers.run(db, (self._key, given), make, parameters)


class PageAnswer:
    def __init__(self, answers: Answers, shape: Paged) -> None:
        self._answers = answers
        self.shape = shape
        self._key = repr(shape)

    async def run(
        self,
        db: Database,
        given: Given,
        parameters: dict[str, Any],
        statements: PageStatements,
        descending: bool,
    ) -> str | None:
        """None as well when the list's statements are built for this request alone."""
        if statements.shape is None:
            return None

        def make(guard: ColumnElement[bool]) -> Select[Any]:
            return page_statement(self.shape, statements, descending, given, guard)

        key = (self._key, given, descending, statements.shape)
        return await self._answers.run(db, key, make, {**parameters, **statements.values})
