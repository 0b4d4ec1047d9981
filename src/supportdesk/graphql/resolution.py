"""How each field of the schema is resolved, decided once, in one place.

For every field of every object type, `resolve_fields` picks one way and installs it:

- **attribute**: a field with no resolver reads its attribute off the object; the execution
  shortcut (`execution.py`) reads and completes such fields itself;
- **direct**: a resolver whose arguments are all scalars and that has no field extensions
  is called straight: for it, Strawberry's wrapper (two coroutines, an extension chain,
  argument conversion that is the identity here) has nothing to do;
- **strawberry**: any other resolver keeps Strawberry's wrapper, as does every field of a
  schema with exception handlers (they run inside that wrapper).

A subscription field is resolved by its `subscribe` (the source stream); its value for
each item of that stream is the item, and an item that is a GraphQLError is raised, so
that a stream can answer one payload with errors and go on.

A field of the permission table, and a field of a person beyond those anyone may read
(`PEOPLE`), is then guarded, whatever its way (a subscription field at its `subscribe`):
the guard wraps the resolver installed here, and a guarded field is never read by the
shortcut. The choice is kept in the field's
`extensions` under `RESOLUTION`, which is what the shortcut reads.

This reads Strawberry's field definitions (`base_resolver`, `arguments`, the converter's
scalar registry): `pyproject.toml` pins Strawberry's minor version for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

import strawberry
from graphql import (
    GraphQLError,
    GraphQLField,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLSchema,
)
from strawberry.relay import GlobalID
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.base import StrawberryMaybe, StrawberryOptional
from strawberry.types.field import StrawberryField

from supportdesk.auth.permissions import guards_of, refusal
from supportdesk.graphql.errors import forbidden

RESOLUTION = "supportdesk.resolution"
_SCALARS = (str, int, float, bool, strawberry.ID)

Resolver = Callable[..., Any]


class How(Enum):
    ATTRIBUTE = "attribute"
    DIRECT = "direct"
    STRAWBERRY = "strawberry"


@dataclass(frozen=True, slots=True)
class Resolution:
    how: How
    # The Python attribute an ATTRIBUTE field reads.
    attribute: str | None = None
    # The scopes the permission table asks for (any one of them); None when it has no entry.
    required: frozenset[str] | None = None
    # Every set of scopes the guard asks for one of, in order: the person rule's (for a
    # contact's or member's field not anyone's), then the table's. Empty: no guard.
    guards: tuple[frozenset[str], ...] = ()

    @property
    def shortcut_attribute(self) -> str | None:
        """The attribute the execution shortcut may read itself: unguarded fields only."""
        return self.attribute if self.how is How.ATTRIBUTE and not self.guards else None


def resolution_of(field: GraphQLField) -> Resolution | None:
    found = (field.extensions or {}).get(RESOLUTION)
    return found if isinstance(found, Resolution) else None


def root_fields(schema: GraphQLSchema) -> list[str]:
    roots = [schema.query_type, schema.mutation_type, schema.subscription_type]
    return [f"{root.name}.{name}" for root in roots if root is not None for name in root.fields]


def refuse_unlisted_roots(schema: GraphQLSchema, permissions: Mapping[str, frozenset[str]]) -> None:
    """Deny by default: a root field missing from the permission table stops the start."""
    missing = [field for field in root_fields(schema) if field not in permissions]
    if missing:
        raise RuntimeError(f"Root fields missing from the permission table: {missing}")


def resolve_fields(
    schema: strawberry.Schema, permissions: Mapping[str, frozenset[str]]
) -> dict[str, Resolution]:
    """Install each field's resolver, guarded when `permissions` lists it or it is a
    person's that not anyone may read, in one pass; returns the table by `Type.field`."""
    graphql_schema = schema._schema
    converter = schema.schema_converter
    plain_allowed = not converter.exception_handlers
    # Strawberry converts a GlobalID argument (and wraps a Maybe one); those keep its wrapper.
    scalars = (set(_SCALARS) | set(converter.scalar_registry)) - {GlobalID}
    table: dict[str, Resolution] = {}
    for graphql_type in graphql_schema.type_map.values():
        if not isinstance(graphql_type, GraphQLObjectType) or graphql_type.name.startswith("__"):
            continue
        if graphql_type is graphql_schema.subscription_type:
            table.update(_subscriptions(graphql_type, permissions))
            continue
        for name, field in graphql_type.fields.items():
            coordinate = f"{graphql_type.name}.{name}"
            definition = (field.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
            resolution, resolve = _way(field, definition, plain_allowed, scalars, schema.config)
            guards = guards_of(graphql_type.name, name, permissions)
            if guards:
                required = permissions.get(coordinate)
                resolution = Resolution(resolution.how, resolution.attribute, required, guards)
                resolve = _guarded(resolve, guards)
            field.resolve = resolve
            field.extensions = {**(field.extensions or {}), RESOLUTION: resolution}
            table[coordinate] = resolution
    return table


def _subscriptions(
    subscription_type: GraphQLObjectType, permissions: Mapping[str, frozenset[str]]
) -> dict[str, Resolution]:
    """Each subscription field keeps Strawberry's `subscribe`, guarded at its start."""
    table: dict[str, Resolution] = {}
    for name, field in subscription_type.fields.items():
        guards = guards_of(subscription_type.name, name, permissions)
        required = permissions.get(f"{subscription_type.name}.{name}")
        resolution = Resolution(How.STRAWBERRY, None, required, guards)
        assert field.subscribe is not None
        field.subscribe = _guarded(field.subscribe, guards) if guards else field.subscribe
        field.resolve = _delivered
        field.extensions = {**(field.extensions or {}), RESOLUTION: resolution}
        table[f"{subscription_type.name}.{name}"] = resolution
    return table


def _delivered(item: Any, _info: GraphQLResolveInfo[Any], **_arguments: Any) -> Any:
    if isinstance(item, GraphQLError):
        raise item
    return item


def _way(
    field: GraphQLField,
    definition: Any,
    plain_allowed: bool,
    scalars: set[Any],
    config: StrawberryConfig,
) -> tuple[Resolution, Resolver]:
    kept = Resolution(How.STRAWBERRY), field.resolve or _missing
    if not isinstance(definition, StrawberryField) or not plain_allowed:
        return kept
    if definition.is_basic_field and definition.default_resolver is getattr:
        name = definition.python_name
        return Resolution(How.ATTRIBUTE, name), _attribute_reader(name)
    if _plain(definition, scalars):
        return Resolution(How.DIRECT), _direct(definition, config)
    return kept


def _missing(*_: Any, **__: Any) -> Any:
    raise RuntimeError("a field without a resolver")  # Strawberry always sets one


def _attribute_reader(name: str) -> Resolver:
    def read(source: Any, _info: GraphQLResolveInfo[Any], **_arguments: Any) -> Any:
        return getattr(source, name)

    return read


def _plain(field: StrawberryField, scalars: set[Any]) -> bool:
    if field.base_resolver is None or field.extensions:
        return False
    for argument in field.arguments:
        argument_type = argument.type
        if isinstance(argument_type, StrawberryMaybe):
            return False
        if isinstance(argument_type, StrawberryOptional):
            argument_type = argument_type.of_type
        if argument_type not in scalars:
            return False
    return True


def _direct(field: StrawberryField, config: StrawberryConfig) -> Resolver:
    resolver = field.base_resolver
    assert resolver is not None
    names = {
        config.name_converter.from_argument(argument): argument.python_name
        for argument in field.arguments
    }
    info_class = config.info_class
    passes_self = resolver.self_parameter is not None
    source_names = [p.name for p in (resolver.parent_parameter, resolver.root_parameter) if p]
    info_name = resolver.info_parameter.name if resolver.info_parameter else None

    def resolve(source: Any, info: GraphQLResolveInfo[Any], **arguments: Any) -> Any:
        kwargs = {names[name]: value for name, value in arguments.items() if name in names}
        for name in source_names:
            kwargs[name] = source
        if info_name is not None:
            kwargs[info_name] = info_class(_raw_info=info, _field=field)
        return resolver(source, **kwargs) if passes_self else resolver(**kwargs)

    return resolve


def _guarded(resolve: Resolver, guards: tuple[frozenset[str], ...]) -> Resolver:
    def guarded(source: Any, info: Any, **arguments: Any) -> Any:
        principal = info.context.principal
        lacking = refusal(principal, guards)
        if lacking is not None:
            raise forbidden(lacking, principal.is_legacy)
        return resolve(source, info, **arguments)

    return guarded
