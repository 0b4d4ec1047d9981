"""Deny by default: every root field and every relation has an entry in the permission table."""

from __future__ import annotations

from collections.abc import AsyncIterator
from types import SimpleNamespace

import pytest
import strawberry
from graphql import (
    GraphQLError,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    get_named_type,
)

from supportdesk.auth.permissions import PEOPLE, PERMISSIONS
from supportdesk.auth.principal import Principal
from supportdesk.graphql.resolution import refuse_unlisted_roots, resolution_of, root_fields
from supportdesk.graphql.schema import build_schema


@pytest.fixture(scope="module")
def schema() -> GraphQLSchema:
    return build_schema()._schema


def is_resource(named: GraphQLNamedType) -> bool:
    """An object with its own identity: the Node interface or a type implementing it."""
    if isinstance(named, GraphQLInterfaceType):
        return named.name == "Node"
    return isinstance(named, GraphQLObjectType) and any(i.name == "Node" for i in named.interfaces)


def is_connection(named: GraphQLNamedType) -> bool:
    return (
        isinstance(named, GraphQLObjectType)
        and named.name.endswith("Connection")
        and {"edges", "pageInfo"} <= set(named.fields)
    )


def is_plumbing(type_name: str) -> bool:
    """Payloads and Relay plumbing carry what their parent field already allowed."""
    return type_name.endswith(("Payload", "Connection", "Edge")) or type_name == "PageInfo"


def relations(schema: GraphQLSchema) -> list[str]:
    roots = {root.name for root in (schema.query_type, schema.mutation_type) if root}
    found = []
    for name, graphql_type in schema.type_map.items():
        if not isinstance(graphql_type, GraphQLObjectType) or name.startswith("__"):
            continue
        if name in roots or is_plumbing(name):
            continue
        for field_name, field in graphql_type.fields.items():
            target = get_named_type(field.type)
            if is_resource(target) or is_connection(target):
                found.append(f"{name}.{field_name}")
    return found


def test_every_root_field_has_an_entry(schema: GraphQLSchema) -> None:
    fields = root_fields(schema)

    assert "Query.apiInfo" in fields and "Mutation.createApiKey" in fields
    assert [field for field in fields if field not in PERMISSIONS] == []


def test_every_relation_to_another_resource_has_an_entry(schema: GraphQLSchema) -> None:
    found = relations(schema)

    assert {"MachineUser.apiKeys", "ApiKey.machineUser"} <= set(found)
    assert [field for field in found if field not in PERMISSIONS] == []


def test_the_schema_refuses_to_start_with_an_unlisted_root_field() -> None:
    @strawberry.type
    class Query:
        @strawberry.field
        def unlisted_secret(self) -> int:
            return 1

    with pytest.raises(RuntimeError, match=r"Query\.unlistedSecret"):
        refuse_unlisted_roots(strawberry.Schema(query=Query)._schema, PERMISSIONS)


def test_the_schema_refuses_to_start_with_an_unlisted_subscription() -> None:
    @strawberry.type
    class Query:
        @strawberry.field
        def listed(self) -> int:
            return 1

    @strawberry.type
    class Subscription:
        @strawberry.subscription
        async def unlisted_feed(self) -> AsyncIterator[int]:
            yield 1

    schema = strawberry.Schema(query=Query, subscription=Subscription)._schema
    with pytest.raises(RuntimeError, match=r"Subscription\.unlistedFeed"):
        refuse_unlisted_roots(schema, {"Query.listed": frozenset()})


def _refusal(field: GraphQLField, info: object) -> object:
    """The error code the field's resolver raises (a subscription's at its start, its
    `subscribe`), None if it raises nothing."""
    resolve = field.subscribe or field.resolve
    assert resolve is not None
    try:
        resolve(None, info)
    except GraphQLError as error:
        return (error.extensions or {}).get("code")
    return None


# A key that no entry allows: legacy (refused by "any standard key") and without scopes.
NOBODY = Principal(
    workspace_id="w",
    workspace_name="w",
    key_id="k",
    key_prefix="svc_live_",
    key_kind="legacy",
    scopes=frozenset(),
    expires_at=None,
    machine_user_id="m",
    machine_user_name="m",
)


def test_every_entry_of_the_table_is_guarded_once_the_schema_is_built(
    schema: GraphQLSchema,
) -> None:
    """Whatever way a field resolves (attribute, direct call, Strawberry's wrapper), its
    installed resolver checks the table first, and the execution shortcut leaves it alone."""
    info = SimpleNamespace(context=SimpleNamespace(principal=NOBODY))
    entries = {c: r for c, r in PERMISSIONS.items() if not c.startswith("REST.")}
    unguarded, stale = [], []
    for coordinate, required in entries.items():
        type_name, field_name = coordinate.split(".")
        graphql_type = schema.type_map.get(type_name)
        if not isinstance(graphql_type, GraphQLObjectType) or field_name not in graphql_type.fields:
            stale.append(coordinate)
            continue
        field = graphql_type.fields[field_name]
        resolution = resolution_of(field)
        assert resolution is not None and resolution.required == required, coordinate
        assert resolution.shortcut_attribute is None, coordinate
        if _refusal(field, info) != "FORBIDDEN":
            unguarded.append(coordinate)

    assert len(entries) > 40
    assert stale == []
    assert unguarded == []


def test_every_field_of_a_person_but_anyone_s_is_guarded_by_its_kind_s_scope(
    schema: GraphQLSchema,
) -> None:
    """Deny by default for people: a field added to Contact or Member later is guarded by
    the scope of its kind until the rule names it as anyone's, wherever the person appears."""
    info = SimpleNamespace(context=SimpleNamespace(principal=NOBODY))
    guarded, open_ = {}, []
    for kind, rule in PEOPLE.items():
        graphql_type = schema.type_map[kind]
        assert isinstance(graphql_type, GraphQLObjectType)
        for name, field in graphql_type.fields.items():
            resolution = resolution_of(field)
            assert resolution is not None
            if name in rule.anyones:
                open_.append(f"{kind}.{name}")
                assert resolution.guards == (), name
                continue
            assert resolution.guards[0] == rule.required, name
            assert resolution.shortcut_attribute is None, name
            guarded[f"{kind}.{name}"] = _refusal(field, info)

    assert sorted(open_) == ["Contact.id", "Member.id", "Member.name"]
    assert {"Contact.email", "Contact.name", "Member.email", "Member.role"} <= set(guarded)
    assert set(guarded.values()) == {"FORBIDDEN"}
