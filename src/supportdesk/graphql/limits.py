"""How big a document may be (CONTRACT section 8): depth, aliases and directives, measured
once per distinct document (the executor caches the verdict), and the cost limit.

Depth, aliases and directives are measured on the raw syntax tree, before validation, so
that a hostile document is refused before validation spends time on it; fragments are
expanded (each one measured once) and cycles, which validation would refuse, are cut.
Fields of introspection (`__schema`, `__type`) do not count towards depth: graphql-core's
MaxIntrospectionDepthRule bounds those, and the standard introspection query nests deeper
than any API query needs to. The cost itself is worked out in graphql/cost.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    visit,
)
from graphql.language import Visitor


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
    meter = _ShapeMeter(fragments_of(document))
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


def fragments_of(document: DocumentNode) -> dict[str, FragmentDefinitionNode]:
    return {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}


def check_cost(cost: int, limits: Limits) -> None:
    if cost > limits.max_cost:
        raise _over("cost", "cost", cost, limits.max_cost)
