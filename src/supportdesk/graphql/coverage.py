"""What a compiled answer covers, derived from the Strawberry types.

The rows of a covered type are in one table (`COVERED`). A field of it compiles when:

- it reads an attribute (no resolver; graphql/resolution.py) named as a column of that
  table: written as the column is, an instant as the API writes instants, a boolean as
  JSON's;
- its resolver is named as a relation of that table that db/answer_sql.py renders
  (`RELATIONS`), yielding what the field's type is: an object or a union (the row it leads
  to, in the tables of the type's members), a list (every row), a connection (a page).

Any other field is answered by the executor, and is listed in `EXECUTOR_FIELDS`, saying
why: tests/graphql/compiled/test_coverage.py names a field that neither compiles nor is
listed. The parts of a connection (graphql/pagination.py) are covered by their Python
names (`_PARTS`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphql import (
    GraphQLField,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    GraphQLUnionType,
)
from strawberry.schema.schema_converter import GraphQLCoreConverter

from supportdesk.db.answer_shapes import Column, Fact, Facts, Items, Kind, Listed, Paged, Related
from supportdesk.db.answer_sql import RELATIONS, columns_of
from supportdesk.domain.issues import VISIBILITIES
from supportdesk.graphql.accounts import Account
from supportdesk.graphql.articles import Article
from supportdesk.graphql.contacts import Contact
from supportdesk.graphql.issues import Issue, Message
from supportdesk.graphql.labels import Label
from supportdesk.graphql.machine_users import MachineUser
from supportdesk.graphql.members import Member
from supportdesk.graphql.pagination import Connection, Edge, PageInfo
from supportdesk.graphql.resolution import How, resolution_of

TYPENAME = "__typename"

# The types a compiled answer writes, and the table each one's rows are in.
COVERED: dict[type, str] = {
    Issue: "issues",
    Message: "messages",
    Contact: "contacts",
    Account: "accounts",
    Article: "articles",
    Label: "labels",
    Member: "org_admins",
    MachineUser: "machine_users",
}

# Fields of covered types the executor answers, by coordinate, and why.
EXECUTOR_FIELDS: dict[str, str] = {
    # Keys are read on their own (apiKeys, a settings page), not inside the answers that
    # clients repeat; no relation renders them.
    "MachineUser.apiKeys": "no relation of machine_users renders its keys",
    # Files are listed beside a thread now and then, not in the answers clients repeat;
    # their download URL is the request's address.
    "Message.attachments": "no relation of messages renders its attachments",
    "Message.email": "no relation of messages renders its e-mail side (message_emails)",
}

# The values a page's narrowing argument may take: any other, the executor refuses, so
# answers. A relation narrowed by a column without an entry here does not compile.
NARROWING_VALUES: dict[str, frozenset[str]] = {"visibility": frozenset(VISIBILITIES)}

PAGE_ARGUMENTS = frozenset({"first", "after"})

# The parts of a connection, its edges and its page info, by Python name: what of the
# page each one is. `Items` and `Facts` are objects made of the next level's parts; the
# node of an edge (None) is the row.
_PARTS: dict[type, dict[str, Any]] = {
    Connection: {"total_count": Fact.TOTAL, "edges": Items, "page_info": Facts},
    Edge: {"cursor": Fact.CURSOR, "node": None},
    PageInfo: {
        "has_next_page": Fact.HAS_NEXT,
        "has_previous_page": Fact.HAS_PREVIOUS,
        "start_cursor": Fact.START_CURSOR,
        "end_cursor": Fact.END_CURSOR,
    },
}


@dataclass(frozen=True, slots=True)
class Compiles:
    """A covered field: a column of the row, or a relation of it, and the arguments it
    takes (a page: `first`, `after` and the columns its rows may be narrowed by)."""

    column: Column | None = None
    relation: str | None = None
    yields: type[Related | Listed | Paged] | None = None
    arguments: frozenset[str] = frozenset()


@dataclass(slots=True)
class Catalogue:
    """What compiles in one schema, by GraphQL type and field name."""

    tables: dict[str, str] = field(default_factory=dict)
    fields: dict[str, dict[str, Compiles]] = field(default_factory=dict)
    # A connection's, an edge's or a page info's parts: a Fact, Items, Facts or None.
    parts: dict[str, dict[str, Any]] = field(default_factory=dict)

    def compiles(self, type_name: str, name: str) -> Compiles | None:
        return self.fields.get(type_name, {}).get(name)

    def covers(self, type_name: str, name: str) -> bool:
        if name == TYPENAME:
            return type_name in self.tables or type_name in self.parts
        return self.compiles(type_name, name) is not None or name in self.parts.get(type_name, {})


def _definition(holder: Any) -> Any:
    return (holder.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)


def origin_of(type_: GraphQLObjectType) -> type | None:
    """The Strawberry class a GraphQL object type is made from (a generic's, for a
    connection or an edge of some node)."""
    definition = _definition(type_)
    if definition is None:
        return None
    origin: type = (definition.concrete_of or definition).origin
    return origin


def named(type_: GraphQLOutputType) -> Any:
    while isinstance(type_, GraphQLNonNull | GraphQLList):
        type_ = type_.of_type
    return type_


def _is_list(type_: GraphQLOutputType) -> bool:
    if isinstance(type_, GraphQLNonNull):
        type_ = type_.of_type
    return isinstance(type_, GraphQLList)


def catalogue_of(schema: GraphQLSchema) -> Catalogue:
    """What compiles of `schema`: the covered types' fields, and the parts of every
    connection of a covered type."""
    found = Catalogue()
    tables = {cls.__strawberry_definition__.name: table for cls, table in COVERED.items()}  # type: ignore[attr-defined]
    found.tables = tables
    for type_ in schema.type_map.values():
        if not isinstance(type_, GraphQLObjectType):
            continue
        if type_.name in tables:
            found.fields[type_.name] = {
                name: compiles
                for name, graphql_field in type_.fields.items()
                if (compiles := _compiles(schema, tables, type_.name, graphql_field)) is not None
            }
        parts = _PARTS.get(origin_of(type_))  # type: ignore[arg-type]
        if parts is not None:
            found.parts[type_.name] = {
                name: parts[_definition(graphql_field).python_name]
                for name, graphql_field in type_.fields.items()
                if _definition(graphql_field).python_name in parts
            }
    return found


def _compiles(
    schema: GraphQLSchema, tables: dict[str, str], type_name: str, graphql_field: GraphQLField
) -> Compiles | None:
    table = tables[type_name]
    resolution = resolution_of(graphql_field)
    if resolution is not None and resolution.how is How.ATTRIBUTE:
        if resolution.attribute not in columns_of(table):
            return None
        return Compiles(column=Column(resolution.attribute, _kind(graphql_field)))
    python_name = _definition(graphql_field).python_name
    relation = RELATIONS.get((table, python_name))
    if relation is None:
        return None
    leads_to, yields = _leads_to(schema, tables, graphql_field.type)
    if yields is not relation.yields or not leads_to or not leads_to <= relation.leads_to:
        return None
    arguments: frozenset[str] = frozenset()
    if yields is Paged:
        if not relation.narrowed_by <= NARROWING_VALUES.keys():
            return None
        arguments = PAGE_ARGUMENTS | relation.narrowed_by
    return Compiles(relation=python_name, yields=yields, arguments=arguments)


def _leads_to(
    schema: GraphQLSchema, tables: dict[str, str], type_: GraphQLOutputType
) -> tuple[frozenset[str], type[Related | Listed | Paged] | None]:
    """The tables of the rows a field of this type writes, and what of them it writes."""
    target = named(type_)
    if isinstance(target, GraphQLUnionType):
        members = [tables.get(member.name) for member in schema.get_possible_types(target)]
        if None in members:
            return frozenset(), None
        return frozenset(m for m in members if m is not None), Related
    if not isinstance(target, GraphQLObjectType):
        return frozenset(), None
    if origin_of(target) is Connection:
        edge = named(target.fields["edges"].type)
        node = named(edge.fields["node"].type)
        table = tables.get(node.name)
        return (frozenset({table}) if table else frozenset()), Paged
    table = tables.get(target.name)
    if table is None:
        return frozenset(), None
    return frozenset({table}), Listed if _is_list(type_) else Related


def _kind(graphql_field: GraphQLField) -> Kind:
    name = named(graphql_field.type).name
    if name == "DateTime":
        return Kind.TIME
    return Kind.BOOLEAN if name == "Boolean" else Kind.VALUE
