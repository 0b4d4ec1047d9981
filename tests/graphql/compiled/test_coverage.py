"""Every field of a type compiled answers write either compiles or is listed, with why,
among the fields the executor answers (graphql/coverage.py): a field added to a covered
type fails here, by name, until it reads a column, follows a relation db/ renders, or is
put on that list. So no field takes documents off the compiled path unseen."""

from __future__ import annotations

from graphql import GraphQLObjectType

from supportdesk.graphql.coverage import COVERED, EXECUTOR_FIELDS, catalogue_of
from supportdesk.graphql.schema import build_schema

SCHEMA = build_schema()._schema
CATALOGUE = catalogue_of(SCHEMA)


def _fields_of(type_name: str) -> list[str]:
    type_ = SCHEMA.type_map[type_name]
    assert isinstance(type_, GraphQLObjectType)
    return list(type_.fields)


def test_every_field_of_a_covered_type_compiles_or_is_listed() -> None:
    covered = [cls.__strawberry_definition__.name for cls in COVERED]  # type: ignore[attr-defined]
    # The connections, edges and page info of those types, by what they are made from.
    parts = list(CATALOGUE.parts)

    neither = [
        f"{type_name}.{name}"
        for type_name in [*covered, *parts]
        for name in _fields_of(type_name)
        if not CATALOGUE.covers(type_name, name) and f"{type_name}.{name}" not in EXECUTOR_FIELDS
    ]

    assert sorted(covered) == sorted(CATALOGUE.tables)
    assert {"IssueConnection", "IssueEdge", "PageInfo"} <= set(parts)
    assert neither == [], "neither compiled nor listed in EXECUTOR_FIELDS"


def test_the_list_holds_only_fields_that_do_not_compile() -> None:
    for coordinate in EXECUTOR_FIELDS:
        type_name, name = coordinate.split(".")

        assert name in _fields_of(type_name), f"{coordinate} is no field"
        assert not CATALOGUE.covers(type_name, name), f"{coordinate} compiles"
