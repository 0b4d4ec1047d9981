"""Resolvers called directly, without Strawberry's general wrapper where it has nothing to do.

Strawberry wraps every resolver in two coroutines and a chain of field extensions, and
converts each argument into its Python type. For a resolver with no field extensions whose
arguments are all scalars, that conversion is the identity and the chain is empty: all that
remains is renaming the arguments and passing `self` and `info`. Those resolvers are called
straight; any other keeps Strawberry's wrapper, as does every resolver of a schema with
exception handlers.
"""

from __future__ import annotations

from typing import Any

import strawberry
from graphql import GraphQLObjectType, GraphQLResolveInfo
from strawberry.relay import GlobalID
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.base import StrawberryMaybe, StrawberryOptional
from strawberry.types.field import StrawberryField

_SCALARS = (str, int, float, bool, strawberry.ID)


def call_resolvers_directly(schema: strawberry.Schema) -> int:
    """Swap in direct calls where they are equivalent; returns how many fields changed."""
    if schema.schema_converter.exception_handlers:
        return 0  # handlers run inside Strawberry's wrapper
    changed = 0
    # Strawberry converts a GlobalID argument (and wraps a Maybe one); those keep its wrapper.
    scalars = (set(_SCALARS) | set(schema.schema_converter.scalar_registry)) - {GlobalID}
    for graphql_type in schema._schema.type_map.values():
        if not isinstance(graphql_type, GraphQLObjectType) or graphql_type.name.startswith("__"):
            continue
        for field in graphql_type.fields.values():
            definition = (field.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
            if isinstance(definition, StrawberryField) and _plain(definition, scalars):
                field.resolve = _direct(definition, schema.config)
                changed += 1
    return changed


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


def _direct(field: StrawberryField, config: StrawberryConfig) -> Any:
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

    resolve.calls_directly = True  # type: ignore[attr-defined]
    return resolve
