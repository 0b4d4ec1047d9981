"""Looking ahead from a resolver at what the query asks of its result, so that a parent can
read a relation in the same statement as itself (the thread of `issue`)."""

from __future__ import annotations

from typing import Any

from graphql import FieldNode, GraphQLObjectType, Undefined, VariableNode, value_from_ast

from supportdesk.graphql.context import Info


def _plain_selections(nodes: list[FieldNode], name: str) -> list[FieldNode]:
    """The fields called `name` selected directly under `nodes`, without a directive."""
    return [
        selection
        for node in nodes
        for selection in (node.selection_set.selections if node.selection_set else ())
        if isinstance(selection, FieldNode)
        and selection.name.value == name
        and not selection.directives
    ]


def subfield_arguments(info: Info, type_name: str, field_name: str) -> dict[str, Any] | None:
    """The arguments of the first `field_name` selected directly under the field being
    resolved (of type `type_name`), variables filled in; None when it is not selected so
    (only through a fragment or under a directive: those take the usual path)."""
    raw = info._raw_info
    parent = raw.schema.type_map.get(type_name)
    if not isinstance(parent, GraphQLObjectType) or field_name not in parent.fields:
        return None
    selections = _plain_selections(list(raw.field_nodes), field_name)
    if not selections:
        return None
    definition = parent.fields[field_name]
    variables = info.variable_values
    arguments: dict[str, Any] = {}
    for argument in selections[0].arguments or ():
        argument_definition = definition.args.get(argument.name.value)
        if argument_definition is None:
            return None
        if isinstance(argument.value, VariableNode) and (
            argument.value.name.value not in variables
        ):
            continue  # an unset variable leaves the argument out
        value = value_from_ast(argument.value, argument_definition.type, variables)
        if value is Undefined:
            return None
        arguments[argument.name.value] = value
    return arguments
