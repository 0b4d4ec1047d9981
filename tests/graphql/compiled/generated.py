"""Documents hypothesis-graphql generates over what compiled answers cover.

The generator draws from a schema cut down to the covered part (`covered_schema`): the
covered root fields, the covered fields of each covered type (graphql/coverage.py), the
parts of their connections. Everything it writes is a valid
document of the whole schema. Arguments take values from the data fixture, mostly valid,
sometimes not: ids of every kind and none, page sizes in and out of range, cursors of
every covered list and of none, instants, search words.
"""

from __future__ import annotations

from datetime import UTC
from functools import cache

import graphql
from graphql import (
    GraphQLInputObjectType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    print_type,
)
from hypothesis import strategies as st
from hypothesis_graphql import from_schema, nodes

from supportdesk.graphql.compiled import LIST_ROOTS, SINGLE_ROOTS
from supportdesk.graphql.coverage import catalogue_of
from supportdesk.graphql.schema import build_schema
from tests.graphql.compiled.dataset import Dataset
from tests.graphql.compiled.harvest import INSTANTS, schema

COVERED_ROOTS = [*SINGLE_ROOTS, *LIST_ROOTS]
CATALOGUE = catalogue_of(build_schema()._schema)
_STRUCTURE = {
    "Connection": ("edges", "pageInfo", "totalCount"),
    "Edge": ("cursor", "node"),
}


def _kept_fields(type_: GraphQLObjectType) -> list[str]:
    if type_.name == "Query":
        return COVERED_ROOTS
    if type_.name == "PageInfo":
        return list(type_.fields)
    for suffix, parts in _STRUCTURE.items():
        if type_.name.endswith(suffix):
            return list(parts)
    return [name for name in type_.fields if CATALOGUE.covers(type_.name, name)]


def _field_sdl(type_: GraphQLObjectType, name: str) -> str:
    field = type_.fields[name]
    arguments = ""
    if field.args:
        printed = []
        for argument_name, argument in field.args.items():
            default = ""
            if argument.default_value is not graphql.Undefined:
                value = graphql.ast_from_value(argument.default_value, argument.type)
                default = f" = {graphql.print_ast(value)}" if value else ""
            printed.append(f"{argument_name}: {argument.type}{default}")
        arguments = f"({', '.join(printed)})"
    return f"  {name}{arguments}: {field.type}"


@cache
def covered_schema() -> str:
    """The SDL of the covered part of the schema."""
    whole = schema()
    kept: dict[str, GraphQLNamedType] = {}

    def keep(named: GraphQLNamedType) -> None:
        if named.name in kept or named.name.startswith("__"):
            return
        kept[named.name] = named
        if isinstance(named, GraphQLObjectType):
            for name in _kept_fields(named):
                field = named.fields[name]
                keep(graphql.get_named_type(field.type))
                for argument in field.args.values():
                    keep(graphql.get_named_type(argument.type))
        elif isinstance(named, GraphQLUnionType):
            for member in named.types:
                keep(member)
        elif isinstance(named, GraphQLInputObjectType):
            for input_field in named.fields.values():
                keep(graphql.get_named_type(input_field.type))

    assert whole.query_type is not None
    keep(whole.query_type)
    parts = []
    for named in kept.values():
        if isinstance(named, GraphQLObjectType):
            interfaces = [i.name for i in named.interfaces if i.name in kept]
            implements = f" implements {' & '.join(interfaces)}" if interfaces else ""
            body = "\n".join(_field_sdl(named, name) for name in _kept_fields(named))
            parts.append(f"type {named.name}{implements} {{\n{body}\n}}")
        elif not graphql.is_specified_scalar_type(named):
            parts.append(print_type(named))
    return "\n\n".join(parts)


@cache
def covered() -> GraphQLSchema:
    built = graphql.build_schema(covered_schema())
    errors = graphql.validate_schema(built)
    assert not errors, errors
    return built


def _ids(data: Dataset, root: str) -> st.SearchStrategy[str]:
    """Ids for the arguments under a root field: mostly of the kind its arguments take
    (the root's own for a single object; labels, members and machine users for the issue
    list's filter), sometimes of another kind, sometimes none."""
    own = {
        "issue": data.issues,
        "contact": data.contacts,
        "account": data.accounts,
        "article": data.articles,
    }.get(root, [*data.labels, *data.members, *data.machine_users])
    return st.one_of(
        st.sampled_from(own),
        st.sampled_from(own),
        st.sampled_from(own),
        st.sampled_from(data.all_ids()),
        st.sampled_from(["iss_00000000000000000000000000", "", "nope"]),
    )


def scalar_strategies(data: Dataset, root: str) -> dict[str, st.SearchStrategy[graphql.ValueNode]]:
    """Values for the arguments under one root field, mostly valid ones of the fixture."""
    sizes = [0, 1, 2, 3, 5, 25, 100]
    ints = st.one_of(
        st.sampled_from(data.ticket_numbers if root == "issueByNumber" else sizes),
        st.sampled_from(sizes),
        st.sampled_from([-1, 101, 2**31 - 1, 9999]),
    )
    strings = st.one_of(
        st.sampled_from(data.cursors),
        st.sampled_from(["public", "internal", "draft", "published", "open", "new", "high"]),
        st.sampled_from(data.emails),
        st.sampled_from(data.words),
        st.text(max_size=8),
    )
    instants = st.one_of(
        st.sampled_from(INSTANTS),
        st.datetimes(timezones=st.just(UTC)).map(
            lambda moment: moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        ),
    )
    return {
        "ID": _ids(data, root).map(nodes.String),
        "Int": ints.map(nodes.Int),
        "String": strings.map(nodes.String),
        "DateTime": instants.map(nodes.String),
    }


def _merged(queries: list[object]) -> str:
    """One document selecting the root fields of all these, each under an alias of its
    own (two `issue` fields with other arguments would not merge)."""
    selections: list[graphql.SelectionNode] = []
    for number, query in enumerate(queries):
        operation = graphql.parse(str(query)).definitions[0]
        assert isinstance(operation, graphql.OperationDefinitionNode)
        for index, selection in enumerate(operation.selection_set.selections):
            assert isinstance(selection, graphql.FieldNode)
            selections.append(
                graphql.FieldNode(
                    alias=graphql.NameNode(value=f"r{number}_{index}"),
                    name=selection.name,
                    arguments=selection.arguments,
                    directives=selection.directives,
                    selection_set=selection.selection_set,
                )
            )
    operation = graphql.OperationDefinitionNode(
        operation=graphql.OperationType.QUERY,
        selection_set=graphql.SelectionSetNode(selections=tuple(selections)),
    )
    return graphql.print_ast(graphql.DocumentNode(definitions=(operation,)))


def documents(data: Dataset) -> st.SearchStrategy[str]:
    """Documents of one root field (mostly) or of two or three, each root's arguments
    drawn for that root."""
    one_root = st.one_of(
        *[
            from_schema(
                covered(),
                fields=[root],
                custom_scalars=scalar_strategies(data, root),
                allow_x00=False,
            )
            for root in COVERED_ROOTS
        ]
    )
    return st.one_of(
        one_root.map(str),
        one_root.map(str),
        st.lists(one_root, min_size=2, max_size=3).map(_merged),
    )


class _Hoist(graphql.Visitor):
    """Every literal argument becomes a variable of the argument's type."""

    def __init__(self, type_info: graphql.TypeInfo) -> None:
        super().__init__()
        self.type_info = type_info
        self.definitions: list[graphql.VariableDefinitionNode] = []
        self.values: dict[str, object] = {}

    def enter_argument(self, node: graphql.ArgumentNode, *_: object) -> graphql.ArgumentNode | None:
        argument = self.type_info.get_argument()
        if argument is None or isinstance(node.value, graphql.VariableNode):
            return None
        name = f"v{len(self.definitions)}"
        self.values[name] = graphql.value_from_ast(node.value, argument.type)
        self.definitions.append(
            graphql.VariableDefinitionNode(
                variable=graphql.VariableNode(name=graphql.NameNode(value=name)),
                type=graphql.parse_type(str(argument.type)),
            )
        )
        return graphql.ArgumentNode(
            name=node.name, value=graphql.VariableNode(name=graphql.NameNode(value=name))
        )


def with_variables(query: str) -> tuple[str, dict[str, object]]:
    """The document with its literal arguments sent as variables instead."""
    type_info = graphql.TypeInfo(covered())
    hoist = _Hoist(type_info)
    rewritten = graphql.visit(graphql.parse(query), graphql.TypeInfoVisitor(type_info, hoist))
    (operation,) = rewritten.definitions
    assert isinstance(operation, graphql.OperationDefinitionNode)
    operation = graphql.OperationDefinitionNode(
        operation=operation.operation,
        variable_definitions=tuple(hoist.definitions),
        selection_set=operation.selection_set,
    )
    return graphql.print_ast(graphql.DocumentNode(definitions=(operation,))), hoist.values


def requests(data: Dataset) -> st.SearchStrategy[tuple[str, dict[str, object] | None]]:
    """Generated documents, their arguments written in them or, half the time, sent as
    variables."""
    return st.tuples(documents(data), st.booleans()).map(
        lambda drawn: with_variables(drawn[0]) if drawn[1] else (drawn[0], None)
    )
