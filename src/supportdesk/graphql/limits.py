"""How big a document may be (CONTRACT section 8): depth, aliases, directives and cost.

Everything here is computed once per distinct document (the executor caches the result);
only the cost of connections whose `first` is a variable is left to each request, as a
small polynomial over those variables that is cheap to evaluate.

Depth, aliases and directives are measured on the raw syntax tree, before validation, so
that a hostile document is refused before validation spends time on it; fragments are
expanded (each one measured once) and cycles, which validation would refuse, are cut.
Fields of introspection (`__schema`, `__type`) do not count towards depth: graphql-core's
MaxIntrospectionDepthRule bounds those, and the standard introspection query nests deeper
than any API query needs to.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLField,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
    get_named_type,
    is_interface_type,
    is_leaf_type,
    is_object_type,
    visit,
)
from graphql.language import Visitor
from graphql.type.introspection import SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef

DEFAULT_PAGE_SIZE = 25


@dataclass(frozen=True, slots=True)
class Limits:
    max_depth: int = 12
    max_aliases: int = 50
    max_cost: int = 10_000
    max_directives: int = 50


class LimitExceeded(Exception):
    """A document, or one request of it, is over a limit; says which and by how much."""

    def __init__(self, limit: str, value: int, maximum: int, message: str) -> None:
        super().__init__(message)
        self.limit = limit
        self.value = value
        self.maximum = maximum

    @property
    def extensions(self) -> dict[str, Any]:
        return {
            "limit": self.limit,
            self.limit: self.value,
            "maximum": self.maximum,
            "excess": self.value - self.maximum,
        }


def _over(limit: str, what: str, value: int, maximum: int) -> LimitExceeded:
    return LimitExceeded(
        limit,
        value,
        maximum,
        f"The query's {what} is {value:,}, over the limit of {maximum:,} by {value - maximum:,}.",
    )


# --- Shape: depth, aliases, directives (before validation) ---------------------------------


@dataclass(frozen=True, slots=True)
class Shape:
    depth: int
    aliases: int


class _ShapeMeter:
    """Depth and aliases of selection sets, with each fragment measured once."""

    def __init__(self, fragments: Mapping[str, FragmentDefinitionNode]) -> None:
        self.fragments = fragments
        self.measured: dict[str, Shape] = {}
        self.entered: set[str] = set()

    def selection_set(self, selections: SelectionSetNode | None) -> Shape:
        depth = aliases = 0
        for selection in selections.selections if selections else ():
            inner = self.selection(selection)
            depth, aliases = max(depth, inner.depth), aliases + inner.aliases
        return Shape(depth, aliases)

    def selection(self, selection: Any) -> Shape:
        if isinstance(selection, FieldNode):
            inner = self.selection_set(selection.selection_set)
            introspection = selection.name.value.startswith("__")
            depth = 1 if introspection else 1 + inner.depth
            return Shape(depth, inner.aliases + (selection.alias is not None))
        if isinstance(selection, InlineFragmentNode):
            return self.selection_set(selection.selection_set)
        if isinstance(selection, FragmentSpreadNode):
            return self.fragment(selection.name.value)
        return Shape(0, 0)

    def fragment(self, name: str) -> Shape:
        if name in self.measured:
            return self.measured[name]
        definition = self.fragments.get(name)
        if definition is None or name in self.entered:
            return Shape(0, 0)  # unknown or cyclic: validation refuses the document
        self.entered.add(name)
        shape = self.selection_set(definition.selection_set)
        self.measured[name] = shape
        return shape


class _CountNodes(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.directives = 0
        self.aliases = 0

    def enter_directive(self, *_args: Any) -> None:
        self.directives += 1

    def enter_field(self, node: FieldNode, *_args: Any) -> None:
        self.aliases += node.alias is not None


def check_shape(document: DocumentNode, limits: Limits) -> None:
    """Refuse a document that nests too deep, aliases too much or piles up directives."""
    counted = _CountNodes()
    visit(document, counted)
    if counted.directives > limits.max_directives:
        raise _over("directives", "number of directives", counted.directives, limits.max_directives)
    meter = _ShapeMeter(_fragments(document))
    shapes = [
        meter.selection_set(d.selection_set)
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode)
    ]
    depth = max((s.depth for s in shapes), default=0)
    # Written aliases bound validation's work; expanded ones bound execution's.
    aliases = max([counted.aliases, *(s.aliases for s in shapes)])
    if depth > limits.max_depth:
        raise _over("depth", "depth", depth, limits.max_depth)
    if aliases > limits.max_aliases:
        raise _over("aliases", "number of aliases", aliases, limits.max_aliases)


def _fragments(document: DocumentNode) -> dict[str, FragmentDefinitionNode]:
    return {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}


# --- Cost (after validation) ---------------------------------------------------------------

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
        inner = self.selection_set(node.selection_set, returned)
        total: Terms = {(): 1}
        if _is_connection(definition, returned):
            size = self.page_size(node)
            if isinstance(size, str):
                _add(total, inner, by=size)
            else:
                _add(total, inner, factor=size)
        else:
            _add(total, inner)
        return total

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


def _is_connection(definition: GraphQLField, returned: GraphQLNamedType) -> bool:
    return (
        "first" in definition.args
        and isinstance(returned, GraphQLObjectType)
        and "edges" in returned.fields
    )


def cost_of(
    schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode
) -> Cost:
    """The cost of a validated operation, as a formula over its page-size variables."""
    root = schema.get_root_type(operation.operation)
    assert root is not None
    meter = _CostMeter(schema, _fragments(document))
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


def check_cost(cost: int, limits: Limits) -> None:
    if cost > limits.max_cost:
        raise _over("cost", "cost", cost, limits.max_cost)
