"""The cost of a query (docs/http-and-limits.md): every field that returns an object, or a list of
objects, costs 1 (`edges`, `node` and `pageInfo` included), leaves cost 0, and a connection
multiplies the cost of its selection by its `first` (25 when absent).

Every other list in the schema has a stated bound (LIST_BOUNDS) that multiplies its
selection the same way; tests/graphql/test_list_bounds.py fails on a list with neither.
Introspection: `__schema` costs 1 and a document may hold one (graphql/limits.py); the lists
under `__type` are bounded by the schema itself (its widest type, its most arguments, ...).

It is worked out once per validated document, as a polynomial over the variables that set
page sizes; each request then only evaluates that polynomial with its own variables.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
    get_named_type,
    get_nullable_type,
    is_abstract_type,
    is_interface_type,
    is_leaf_type,
    is_list_type,
    is_object_type,
)
from graphql.type.introspection import SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef

from supportdesk.auth.scopes import SCOPES
from supportdesk.domain.attachments.models import MAX_PER_MESSAGE as MAX_ATTACHMENTS_PER_MESSAGE
from supportdesk.domain.events import EVENT_TYPES
from supportdesk.domain.issues.bulk import MAX_IDS as MAX_BULK_IDS
from supportdesk.domain.labels.models import MAX_LABELS_PER_ISSUE
from supportdesk.domain.pagination import MAX_PAGE_SIZE
from supportdesk.graphql.limits import fragments_of

DEFAULT_PAGE_SIZE = 25

# (type, field) of each list field that is not a connection's `edges`: its longest length.
LIST_BOUNDS: dict[tuple[str, str], int] = {
    ("ApiKey", "scopes"): len(SCOPES),  # a key's scopes are a subset of the catalogue
    ("Issue", "labels"): MAX_LABELS_PER_ISSUE,
    ("Message", "attachments"): MAX_ATTACHMENTS_PER_MESSAGE,
    ("UpdateIssuesPayload", "issues"): MAX_BULK_IDS,
    ("MutationError", "fields"): 100,  # one per input field, or per id of a bulk input
    ("WebhookEndpoint", "eventTypes"): len(EVENT_TYPES),  # a subset of the catalogue
}


Monomial = tuple[str, ...]  # the variables (page sizes) multiplied together, sorted


@dataclass(frozen=True, slots=True)
class Cost:
    """A cost as a polynomial over the variables that set page sizes: {monomial: points}.

    A document whose pages are all literal has a single constant term.
    """

    terms: Mapping[Monomial, int] = field(default_factory=dict)
    page_defaults: Mapping[str, int] = field(default_factory=dict)

    @property
    def constant(self) -> int | None:
        """The cost when it depends on no variable."""
        if all(not monomial for monomial in self.terms):
            return self.terms.get((), 0)
        return None

    def evaluate(self, variables: Mapping[str, Any] | None) -> int:
        """The cost of one request: each page variable at its value, default, or 25."""
        sizes = {
            name: _page_size((variables or {}).get(name), default)
            for name, default in self.page_defaults.items()
        }
        total = 0
        for monomial, points in self.terms.items():
            product = points
            for name in monomial:
                product *= sizes.get(name, DEFAULT_PAGE_SIZE)
            total += product
        return total


def _page_size(value: Any, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, int) and not isinstance(value, bool):
        return max(value, 0)
    return default  # the wrong type: variable coercion refuses the request anyway


Terms = dict[Monomial, int]


def _add(
    into: Terms, terms: Mapping[Monomial, int], factor: int = 1, by: str | None = None
) -> None:
    for monomial, points in terms.items():
        key = tuple(sorted((*monomial, by))) if by is not None else monomial
        into[key] = into.get(key, 0) + points * factor


class _CostMeter:
    """Cost of a validated operation: every field returning an object (or a list of them)
    costs 1, leaves cost 0, and a connection multiplies the cost of its selection by its
    `first`. Fragments on different types of an abstract type are all counted: an upper
    bound, and exact for the common case of one type."""

    def __init__(
        self, schema: GraphQLSchema, fragments: Mapping[str, FragmentDefinitionNode]
    ) -> None:
        self.schema = schema
        self.fragments = fragments
        self.measured: dict[str, Terms] = {}
        self.page_variables: set[str] = set()

    def selection_set(self, selections: SelectionSetNode | None, parent: GraphQLNamedType) -> Terms:
        total: Terms = {}
        for selection in selections.selections if selections else ():
            if isinstance(selection, FieldNode):
                _add(total, self.field(selection, parent))
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                target = self.schema.get_type(condition.name.value) if condition else parent
                _add(total, self.selection_set(selection.selection_set, target or parent))
            elif isinstance(selection, FragmentSpreadNode):
                _add(total, self.fragment(selection.name.value))
        return total

    def fragment(self, name: str) -> Terms:
        if name not in self.measured:
            definition = self.fragments[name]
            target = self.schema.get_type(definition.type_condition.name.value)
            assert target is not None
            self.measured[name] = {}  # validation has refused cycles; this only stops recursion
            self.measured[name] = self.selection_set(definition.selection_set, target)
        return self.measured[name]

    def field(self, node: FieldNode, parent: GraphQLNamedType) -> Terms:
        definition = _field_definition(self.schema, parent, node.name.value)
        if definition is None:
            return {}
        returned = get_named_type(definition.type)
        if is_leaf_type(returned):
            return {}
        if definition is SchemaMetaFieldDef:
            return {(): 1}  # bounded by the schema, and one per document (limits.py)
        inner = self.selection_set(node.selection_set, returned)
        total: Terms = {(): 1}
        if _is_connection(definition, returned):
            size = self.page_size(node)
            if isinstance(size, str):
                _add(total, inner, by=size)
            else:
                _add(total, inner, factor=size)
        elif is_list_type(get_nullable_type(definition.type)) and not _is_page(parent, node):
            _add(total, inner, factor=self.list_bound(parent.name, node.name.value))
        else:
            _add(total, inner)
        return total

    @cached_property
    def introspection_bounds(self) -> dict[tuple[str, str], int]:
        return introspection_bounds(self.schema)

    def list_bound(self, parent: str, name: str) -> int:
        bound = LIST_BOUNDS.get((parent, name))
        if bound is None:
            bound = self.introspection_bounds.get((parent, name))
        # A list that is neither a connection nor bounded fails the schema test; costed at
        # the largest page meanwhile.
        return bound if bound is not None else MAX_PAGE_SIZE

    def page_size(self, node: FieldNode) -> int | str:
        for argument in node.arguments or ():
            if argument.name.value == "first":
                value = argument.value
                if isinstance(value, VariableNode):
                    self.page_variables.add(value.name.value)
                    return value.name.value
                if isinstance(value, IntValueNode):
                    return max(int(value.value), 0)
        return DEFAULT_PAGE_SIZE


def introspection_bounds(schema: GraphQLSchema) -> dict[tuple[str, str], int]:
    """The longest each introspection list can be in this schema."""
    types = list(schema.type_map.values())

    def widest(sizes: Iterable[int]) -> int:
        return max(sizes, default=0)

    fields = [t.fields for t in types if isinstance(t, GraphQLObjectType | GraphQLInterfaceType)]
    args = widest(len(f.args) for group in fields for f in group.values())
    directive_args = widest(len(d.args) for d in schema.directives)
    return {
        ("__Schema", "types"): len(types),
        ("__Schema", "directives"): len(schema.directives),
        ("__Type", "fields"): widest(len(group) for group in fields),
        ("__Type", "interfaces"): widest(
            len(t.interfaces)
            for t in types
            if isinstance(t, GraphQLObjectType | GraphQLInterfaceType)
        ),
        ("__Type", "possibleTypes"): widest(
            len(schema.get_possible_types(t)) for t in types if is_abstract_type(t)
        ),
        ("__Type", "enumValues"): widest(
            len(t.values) for t in types if isinstance(t, GraphQLEnumType)
        ),
        ("__Type", "inputFields"): widest(
            len(t.fields) for t in types if isinstance(t, GraphQLInputObjectType)
        ),
        ("__Field", "args"): args,
        ("__Directive", "args"): directive_args,
        ("__Directive", "locations"): 20,
    }


def _field_definition(
    schema: GraphQLSchema, parent: GraphQLNamedType, name: str
) -> GraphQLField | None:
    if name == "__typename":
        return TypeNameMetaFieldDef
    if parent is schema.query_type and name == "__schema":
        return SchemaMetaFieldDef
    if parent is schema.query_type and name == "__type":
        return TypeMetaFieldDef
    if is_object_type(parent) or is_interface_type(parent):
        found: GraphQLField | None = parent.fields.get(name)
        return found
    return None


def _is_page(parent: GraphQLNamedType, node: FieldNode) -> bool:
    """The `edges` of a connection: the connection's `first` has multiplied them already."""
    return node.name.value == "edges" and is_connection_type(parent)


def is_connection_type(named: GraphQLNamedType) -> bool:
    return (
        isinstance(named, GraphQLObjectType)
        and "edges" in named.fields
        and "pageInfo" in named.fields
    )


def _is_connection(definition: GraphQLField, returned: GraphQLNamedType) -> bool:
    return "first" in definition.args and is_connection_type(returned)


def cost_of(
    schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode
) -> Cost:
    """The cost of a validated operation, as a formula over its page-size variables."""
    root = schema.get_root_type(operation.operation)
    assert root is not None
    meter = _CostMeter(schema, fragments_of(document))
    terms = meter.selection_set(operation.selection_set, root)
    return Cost(terms, _variable_defaults(operation, meter.page_variables))


def _variable_defaults(operation: OperationDefinitionNode, names: Iterable[str]) -> dict[str, int]:
    wanted = set(names)
    defaults = dict.fromkeys(wanted, DEFAULT_PAGE_SIZE)
    for definition in operation.variable_definitions or ():
        name = definition.variable.name.value
        if name in wanted and isinstance(definition.default_value, IntValueNode):
            defaults[name] = max(int(definition.default_value.value), 0)
    return defaults
