"""Every list the schema can answer is bounded before the query runs: a connection's `edges`
by `first`, any other list by a stated bound that the cost multiplies by."""

from __future__ import annotations

from graphql import (
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    get_named_type,
    get_nullable_type,
    is_list_type,
)

from supportdesk.graphql.cost import LIST_BOUNDS, is_connection_type
from supportdesk.graphql.schema import build_schema


def _object_types(schema: GraphQLSchema) -> list[GraphQLObjectType | GraphQLInterfaceType]:
    return [
        named
        for name, named in schema.type_map.items()
        if not name.startswith("__") and isinstance(named, GraphQLObjectType | GraphQLInterfaceType)
    ]


def _paged_types(schema: GraphQLSchema) -> set[str]:
    """Connection types that every field returning them pages with `first`."""
    returned_by: dict[str, list[bool]] = {}
    for parent in _object_types(schema):
        for field in parent.fields.values():
            named = get_named_type(field.type)
            if is_connection_type(named):
                returned_by.setdefault(named.name, []).append("first" in field.args)
    return {name for name, paged in returned_by.items() if all(paged)}


def _unbounded_lists(schema: GraphQLSchema) -> list[str]:
    paged = _paged_types(schema)
    unbounded = []
    for parent in _object_types(schema):
        for name, field in parent.fields.items():
            if not is_list_type(get_nullable_type(field.type)):
                continue
            if name == "edges" and parent.name in paged:
                continue
            if (parent.name, name) not in LIST_BOUNDS:
                unbounded.append(f"{parent.name}.{name}")
    return unbounded


def test_every_list_field_is_a_paged_connection_or_has_a_stated_bound() -> None:
    assert _unbounded_lists(build_schema()._schema) == []


def test_the_check_finds_a_plain_list_of_objects() -> None:
    schema = build_schema()._schema
    machine_user = schema.type_map["MachineUser"]
    assert isinstance(machine_user, GraphQLObjectType)
    api_keys = machine_user.fields["apiKeys"]
    original = api_keys.type
    try:
        api_keys.type = schema.type_map["ApiKeyConnection"].fields["edges"].type  # type: ignore[union-attr]
        assert "MachineUser.apiKeys" in _unbounded_lists(schema)
    finally:
        api_keys.type = original


def test_every_stated_bound_names_a_list_of_the_schema() -> None:
    schema = build_schema()._schema
    for parent, name in LIST_BOUNDS:
        field = schema.type_map[parent].fields[name]  # type: ignore[union-attr]
        assert is_list_type(get_nullable_type(field.type)), f"{parent}.{name}"
