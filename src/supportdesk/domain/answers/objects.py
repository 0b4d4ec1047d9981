"""The JSON of each type a compiled answer covers, built from a row source.

An object is built from a `source`: a table, alias or sub-select whose columns are named
as the type's table names them. Its plain fields are columns; its relations are
sub-selects correlated to the source, each in the order, with the conditions and the
page size the executor's batch reads use (domain/*/queries.py), so both paths give the
same answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    FromClause,
    Select,
    and_,
    bindparam,
    case,
    false,
    func,
    literal,
    null,
    select,
)

from supportdesk.db.answers import (
    json_boolean,
    json_items,
    json_object,
    json_value,
    rfc3339,
    signed_cursor,
)
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
from supportdesk.domain.answers.selection import TYPENAME, Given, Picked, argument_name

# Every alias and sub-select here is anonymous: SQLAlchemy names each uniquely in the
# statement. A name used twice (a connection's page inside another's) would make an inner
# sub-select see the nearer one of the two, not the source it is correlated to.


class Kind(Enum):
    VALUE = "value"  # text or a number, as stored
    TIME = "time"  # DateTime
    BOOLEAN = "boolean"


_V, _T, _B = Kind.VALUE, Kind.TIME, Kind.BOOLEAN

# GraphQL field -> (column, kind), per type.
SCALARS: dict[str, dict[str, tuple[str, Kind]]] = {
    "Issue": {
        "id": ("id", _V),
        "ticketNumber": ("ticket_number", _V),
        "subject": ("subject", _V),
        "status": ("status", _V),
        "priority": ("priority", _V),
        "messageCount": ("message_count", _V),
        "createdAt": ("created_at", _T),
        "updatedAt": ("updated_at", _T),
    },
    "Message": {
        "id": ("id", _V),
        "senderName": ("sender_name", _V),
        "body": ("body", _V),
        "visibility": ("visibility", _V),
        "createdAt": ("created_at", _T),
    },
    "Contact": {
        "id": ("id", _V),
        "email": ("email", _V),
        "name": ("name", _V),
        "createdAt": ("created_at", _T),
        "updatedAt": ("updated_at", _T),
    },
    "Account": {
        "id": ("id", _V),
        "name": ("name", _V),
        "domain": ("domain", _V),
        "createdAt": ("created_at", _T),
        "updatedAt": ("updated_at", _T),
    },
    "Article": {
        "id": ("id", _V),
        "title": ("title", _V),
        "body": ("body", _V),
        "status": ("status", _V),
        "createdAt": ("created_at", _T),
        "updatedAt": ("updated_at", _T),
        "publishedAt": ("published_at", _T),
    },
    "Label": {
        "id": ("id", _V),
        "name": ("name", _V),
        "color": ("color", _V),
        "description": ("description", _V),
        "createdAt": ("created_at", _T),
        "updatedAt": ("updated_at", _T),
    },
    "Member": {
        "id": ("id", _V),
        "email": ("email", _V),
        "name": ("name", _V),
        "role": ("role", _V),
        "createdAt": ("created_at", _T),
    },
    "MachineUser": {
        "id": ("id", _V),
        "name": ("name", _V),
        "description": ("description", _V),
        "managed": ("managed", _B),
        "createdAt": ("created_at", _T),
        "updatedAt": ("updated_at", _T),
    },
}

TABLES: dict[str, FromClause] = {
    "Issue": issues,
    "Message": messages,
    "Contact": contacts,
    "Account": accounts,
    "Article": articles,
    "Label": labels,
    "Member": org_admins,
    "MachineUser": machine_users,
}

# The type a union arm's `<kind>_type` column names, as the domain writes it.
_PERSON_KINDS = {"member": "Member", "machine_user": "MachineUser"}
_AUTHOR_KINDS = {"contact": "Contact", **_PERSON_KINDS}


def _scalar(source: FromClause, column: str, kind: Kind) -> ColumnElement[Any]:
    value = source.c[column]
    if kind is Kind.TIME:
        return rfc3339(value)
    if kind is Kind.BOOLEAN:
        return json_boolean(value)
    return value


def _typename(name: str) -> ColumnElement[Any]:
    return literal(name)


def object_json(
    type_name: str, picks: tuple[Picked, ...], source: FromClause, given: Given
) -> ColumnElement[Any]:
    """The JSON object of one row of `source` as a `type_name` with these picks."""
    scalars = SCALARS[type_name]
    pairs: list[tuple[str, ColumnElement[Any]]] = []
    for picked in picks:
        if picked.field == TYPENAME:
            pairs.append((picked.key, _typename(type_name)))
        elif picked.field in scalars:
            pairs.append((picked.key, _scalar(source, *scalars[picked.field])))
        else:
            relation = RELATIONS[(type_name, picked.field)]
            pairs.append((picked.key, json_value(relation(picked, source, given))))
    return json_object(pairs)


def _in_workspace_of(table: FromClause, source: FromClause) -> ColumnElement[bool]:
    return table.c.workspace_id == source.c.workspace_id


def _one(
    type_name: str, picked: Picked, source: FromClause, given: Given, id_column: ColumnElement[Any]
) -> ColumnElement[Any]:
    """The object of `type_name` whose id `id_column` (of the source) holds, or null."""
    row = TABLES[type_name].alias()
    return (
        select(object_json(type_name, picked.objects[type_name], row, given))  # type: ignore[index]
        .where(_in_workspace_of(row, source), row.c.id == id_column)
        .correlate(source)
        .scalar_subquery()
    )


def _either(
    picked: Picked,
    source: FromClause,
    given: Given,
    kind_column: str,
    id_column: str,
    kinds: dict[str, str],
) -> ColumnElement[Any]:
    """A union field: the object of the type `kind_column` names, by `id_column`."""
    assert picked.objects is not None
    whens = [
        (
            source.c[kind_column] == kind,
            json_value(_one(type_name, picked, source, given, source.c[id_column])),
        )
        for kind, type_name in kinds.items()
        if type_name in picked.objects
    ]
    if not whens:  # no arm selects a field: an empty object for each arm
        whens = [(source.c[kind_column] == kind, json_object([])) for kind in kinds]
    return case(*whens, else_=null())


@dataclass(frozen=True, slots=True)
class Children:
    """The rows of one connection of a parent: `rows` selects the child type's columns
    (conditions correlated to the parent included) and is ordered by `order`, its id."""

    type_name: str
    rows: Select[Any]
    total: ColumnElement[Any]
    descending: bool = False
    # `rows` is already one page (past the cursor, ordered, limited): a root list's, as
    # the domain reads it.
    paged: bool = False


def connection_json(
    picked: Picked, children: Children, source: FromClause | None, given: Given
) -> ColumnElement[Any]:
    """A connection: one page of `children` (the bound `first` of this field, past its
    bound `after`), its cursors, `pageInfo` and `totalCount`, as one sub-select."""
    first: BindParameter[int] = bindparam(argument_name(picked.number, "first"))
    order_key = children.rows.selected_columns.id
    rows = children.rows
    if not children.paged:
        if given.has(picked, "after"):
            after: BindParameter[str] = bindparam(argument_name(picked.number, "after"))
            rows = rows.where(order_key < after if children.descending else order_key > after)
        rows = rows.order_by(order_key.desc() if children.descending else order_key).limit(
            bindparam(argument_name(picked.number, "limit"))
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
    ((connection_type, connection_picks),) = picked.objects.items()  # type: ignore[union-attr]
    pairs: list[tuple[str, ColumnElement[Any]]] = []
    for part in connection_picks:
        if part.field == TYPENAME:
            pairs.append((part.key, _typename(connection_type)))
        elif part.field == "totalCount":
            pairs.append((part.key, children.total))
        elif part.field == "edges":
            ((edge_type, edge_picks),) = part.objects.items()  # type: ignore[union-attr]
            edge = json_object(
                [
                    (
                        e.key,
                        _typename(edge_type)
                        if e.field == TYPENAME
                        else cursor
                        if e.field == "cursor"
                        else object_json(children.type_name, e.only(), numbered, given),
                    )
                    for e in edge_picks
                ]
            )
            pairs.append((part.key, json_items(edge, in_page)))
        elif part.field == "pageInfo":
            # The page is in id order (every compiled list's cursor is an id): its last
            # edge holds its greatest id (least, newest first), its first edge the other.
            newest, oldest = func.max(numbered.c.id), func.min(numbered.c.id)
            last, first_edge = (oldest, newest) if children.descending else (newest, oldest)
            info = {
                "hasNextPage": json_boolean(func.count() > first),
                "hasPreviousPage": json_boolean(false()),
                "endCursor": signed_cursor(last.filter(in_page)),
                "startCursor": signed_cursor(first_edge.filter(in_page)),
            }
            ((info_type, info_picks),) = part.objects.items()  # type: ignore[union-attr]
            pairs.append(
                (
                    part.key,
                    json_object(
                        [
                            (p.key, _typename(info_type) if p.field == TYPENAME else info[p.field])
                            for p in info_picks
                        ]
                    ),
                )
            )
    # Aggregates give one row even for an empty page; without one, no rows are read.
    answer = select(json_object(pairs))
    if _aggregates(connection_picks):
        answer = answer.select_from(numbered)
    if source is not None:
        answer = answer.correlate(source)
    return answer.scalar_subquery()


def _aggregates(connection_picks: tuple[Picked, ...]) -> bool:
    """Whether a connection's JSON reads its page: its edges, or its page's cursors."""
    for part in connection_picks:
        if part.field == "edges":
            return True
        if part.field == "pageInfo" and any(
            p.field in ("hasNextPage", "endCursor", "startCursor") for p in part.only()
        ):
            return True
    return False


def _count(rows: Select[Any], source: FromClause) -> ColumnElement[Any]:
    counted = rows.correlate(source).subquery()
    return select(func.count()).select_from(counted).correlate(source).scalar_subquery()


def _columns(table: FromClause) -> list[ColumnElement[Any]]:
    return list(table.c)


def _thread(picked: Picked, source: FromClause, given: Given) -> ColumnElement[Any]:
    row = messages.alias()
    rows = select(*_columns(row)).where(
        _in_workspace_of(row, source), row.c.issue_id == source.c.id
    )
    total: ColumnElement[Any] = source.c.message_count
    if given.has(picked, "visibility"):
        rows = rows.where(row.c.visibility == bindparam(argument_name(picked.number, "visibility")))
        total = _count(rows.correlate(source), source)
    return connection_json(
        picked, Children("Message", rows.correlate(source), total), source, given
    )


def _issues_of_contact(picked: Picked, source: FromClause, given: Given) -> ColumnElement[Any]:
    row = issues.alias()
    rows = select(*_columns(row)).where(
        _in_workspace_of(row, source), row.c.requester_id == source.c.id
    )
    return connection_json(
        picked, Children("Issue", rows.correlate(source), _count(rows, source)), source, given
    )


def _contacts_of_account(picked: Picked, source: FromClause, given: Given) -> ColumnElement[Any]:
    row = contacts.alias()
    rows = select(*_columns(row)).where(
        _in_workspace_of(row, source), row.c.account_id == source.c.id
    )
    return connection_json(
        picked, Children("Contact", rows.correlate(source), _count(rows, source)), source, given
    )


def _issues_of_account(picked: Picked, source: FromClause, given: Given) -> ColumnElement[Any]:
    # An issue belongs to the account its requester belongs to now.
    row, asker = issues.alias(), contacts.alias()
    rows = (
        select(*_columns(row))
        .select_from(
            row.join(
                asker,
                and_(asker.c.workspace_id == row.c.workspace_id, asker.c.id == row.c.requester_id),
            )
        )
        .where(_in_workspace_of(row, source), asker.c.account_id == source.c.id)
    )
    return connection_json(
        picked, Children("Issue", rows.correlate(source), _count(rows, source)), source, given
    )


def _labels_of_issue(picked: Picked, source: FromClause, given: Given) -> ColumnElement[Any]:
    label, carried = labels.alias(), issue_labels.alias()
    numbered = (
        select(*_columns(label))
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
    item = object_json("Label", picked.only(), numbered, given)
    items = json_items(item, literal(True))
    return select(items).select_from(numbered).correlate(source).scalar_subquery()


Relation = Callable[[Picked, FromClause, Given], ColumnElement[Any]]

RELATIONS: dict[tuple[str, str], Relation] = {
    ("Issue", "messages"): _thread,
    ("Issue", "requester"): lambda p, s, g: _one("Contact", p, s, g, s.c.requester_id),
    ("Issue", "mergedInto"): lambda p, s, g: _one("Issue", p, s, g, s.c.merged_into),
    ("Issue", "labels"): _labels_of_issue,
    ("Issue", "assignee"): lambda p, s, g: _either(
        p, s, g, "assignee_type", "assignee_id", _PERSON_KINDS
    ),
    ("Message", "author"): lambda p, s, g: _either(
        p, s, g, "author_type", "author_id", _AUTHOR_KINDS
    ),
    ("Contact", "account"): lambda p, s, g: _one("Account", p, s, g, s.c.account_id),
    ("Contact", "issues"): _issues_of_contact,
    ("Account", "contacts"): _contacts_of_account,
    ("Account", "issues"): _issues_of_account,
}

# The arguments each relation takes; a relation with others is not compiled.
RELATION_ARGUMENTS: dict[tuple[str, str], frozenset[str]] = {
    key: frozenset(
        {"first", "after", "visibility"} if key == ("Issue", "messages") else {"first", "after"}
    )
    if key
    in {
        ("Issue", "messages"),
        ("Contact", "issues"),
        ("Account", "contacts"),
        ("Account", "issues"),
    }
    else frozenset()
    for key in RELATIONS
}


def covers(type_name: str, field: str) -> bool:
    """Whether a compiled answer can give this field of this type."""
    return (
        field == TYPENAME or field in SCALARS.get(type_name, {}) or (type_name, field) in RELATIONS
    )
