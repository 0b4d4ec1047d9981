"""How big a document may be (docs/http-and-limits.md): depth, aliases and directives, measured
once per distinct document (the executor caches the verdict), and the cost limit.

Depth, aliases and directives are measured on the raw syntax tree, before validation, so
that a hostile document is refused before validation spends time on it; fragments are
expanded (each one measured once) and cycles, which validation would refuse, are cut.
Fields of introspection (`__schema`, `__type`) do not count towards depth: graphql-core's
MaxIntrospectionDepthRule bounds those, and the standard introspection query nests deeper
than any API query needs to; a document may hold one `__schema`. Nesting (selection sets and
fragments inside one another) is bounded too, since validation and execution recurse
through it. The cost itself is worked out in graphql/cost.py. The query's text and the
answer are bounded in bytes.
"""

from __future__ import annotations

import re
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
    max_directives_per_location: int = 5
    max_tokens: int = 10_000
    max_nesting: int = 64
    max_query_bytes: int = 64 * 1024
    max_response_bytes: int = 10_000_000


MAX_SCHEMA_FIELDS = 1


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
    # Selection sets inside one another, fragments included: what recursion over the
    # document (validation, cost, execution) descends through.
    nesting: int


_EMPTY = Shape(0, 0, 0)


class _ShapeMeter:
    """Depth, aliases and nesting of selection sets, with each fragment measured once.

    The walk itself recurses, so it stops as soon as it is `max_nesting` levels down: a
    chain of a thousand fragments is refused here instead of overflowing Python's stack
    here or in validation."""

    def __init__(self, fragments: Mapping[str, FragmentDefinitionNode], max_nesting: int) -> None:
        self.fragments = fragments
        self.max_nesting = max_nesting
        self.measured: dict[str, Shape] = {}
        self.entered: set[str] = set()
        self.level = 0

    def selection_set(self, selections: SelectionSetNode | None) -> Shape:
        if selections is None:
            return _EMPTY
        self._descend(1)
        depth = aliases = nesting = 0
        for selection in selections.selections:
            inner = self.selection(selection)
            depth, aliases = max(depth, inner.depth), aliases + inner.aliases
            nesting = max(nesting, inner.nesting)
        self.level -= 1
        return Shape(depth, aliases, nesting + 1)

    def _descend(self, levels: int) -> None:
        self.level += levels
        if self.level > self.max_nesting:
            raise _over(
                "nesting", "nesting of selections and fragments", self.level, self.max_nesting
            )

    def selection(self, selection: Any) -> Shape:
        if isinstance(selection, FieldNode):
            inner = self.selection_set(selection.selection_set)
            introspection = selection.name.value.startswith("__")
            depth = 1 if introspection else 1 + inner.depth
            return Shape(depth, inner.aliases + (selection.alias is not None), inner.nesting)
        if isinstance(selection, InlineFragmentNode):
            return self.selection_set(selection.selection_set)
        if isinstance(selection, FragmentSpreadNode):
            return self.fragment(selection.name.value)
        return _EMPTY

    def fragment(self, name: str) -> Shape:
        shape = self.measured.get(name)
        if shape is None:
            definition = self.fragments.get(name)
            if definition is None or name in self.entered:
                return _EMPTY  # unknown or cyclic: validation refuses the document
            self.entered.add(name)
            shape = self.measured[name] = self.selection_set(definition.selection_set)
        else:
            # Measured below another spread: its nesting counts from here too.
            self._descend(shape.nesting)
            self.level -= shape.nesting
        return shape


class _CountNodes(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.directives = 0
        self.aliases = 0
        self.schema_fields = 0
        self.most_directives_on_one = 0

    def _directives_on(self, node: Any, *_args: Any) -> None:
        self.most_directives_on_one = max(self.most_directives_on_one, len(node.directives or ()))

    # The other nodes of an operation that carry directives count only those.
    enter_operation_definition = enter_fragment_definition = _directives_on
    enter_fragment_spread = enter_inline_fragment = enter_variable_definition = _directives_on

    def enter_directive(self, *_args: Any) -> None:
        self.directives += 1

    def enter_field(self, node: FieldNode, *_args: Any) -> None:
        self.aliases += node.alias is not None
        self.schema_fields += node.name.value == "__schema"
        self._directives_on(node)


# One lexeme of GraphQL, with the comments, white space and commas before it: strings and
# block strings whole, directives' `@` captured. Scanned by the regex engine in C, this
# counts a document's tokens and directives in a few milliseconds, where graphql-core's
# parser spends over 100 ms reaching its token limit. It can only undercount (e.g. on a
# malformed string), and what it misses the parser's own `max_tokens` still stops.
_LEXEME = re.compile(
    r"""(?:\#[^\n\r]*+|[\s,\ufeff]++)*+
    (?: \"\"\"(?:[^"\\]++|\\.|"(?!""))*+\"\"\"
      | "(?:[^"\\\n\r]++|\\.)*+"
      | (?P<at>@)
      | \.\.\.
      | [!$&():=\[\]{|}]
      | -?[_A-Za-z0-9][_A-Za-z0-9.+-]*+ )""",
    re.VERBOSE,
)


def query_bytes(query: str) -> int:
    """The length of the query in UTF-8, as it came in the request."""
    return len(query) if query.isascii() else len(query.encode("utf-8", "surrogatepass"))


def check_text(query: str, limits: Limits) -> None:
    """Refuse, before parsing, a document too long or of too many tokens or directives.

    The length comes first: it costs nothing, and what it spares is the parser's work and
    memory on a long document (a token per value, held in a chain, and error messages that
    quote them), which neither the token count nor the body's size bounds."""
    size = query_bytes(query)
    if size > limits.max_query_bytes:
        raise LimitExceeded(
            "query_bytes",
            size,
            limits.max_query_bytes,
            f"The query is {size:,} bytes long, over the limit of {limits.max_query_bytes:,}"
            f" by {size - limits.max_query_bytes:,}; send large values as variables.",
        )
    directives, tokens = _LEXEME.subn(r"\g<at>", query, count=limits.max_tokens + 1)
    if tokens > limits.max_tokens:
        raise LimitExceeded(
            "tokens",
            tokens,
            limits.max_tokens,
            f"The query has more than {limits.max_tokens:,} tokens, the limit.",
        )
    # Every lexeme was replaced, by its `@` or by nothing: what is left is the directives
    # (and characters no lexeme matches, which the parser refuses).
    found = directives.count("@")
    if found > limits.max_directives:
        raise _over("directives", "number of directives", found, limits.max_directives)


def check_shape(document: DocumentNode, limits: Limits) -> None:
    """Refuse a document that nests too deep, aliases too much or piles up directives."""
    counted = _CountNodes()
    visit(document, counted)
    if counted.directives > limits.max_directives:
        raise _over("directives", "number of directives", counted.directives, limits.max_directives)
    if counted.most_directives_on_one > limits.max_directives_per_location:
        raise _over(
            "directives",
            "number of directives on one field, fragment or operation",
            counted.most_directives_on_one,
            limits.max_directives_per_location,
        )
    # The whole schema answers in one `__schema`; more of them are only work (its cost is 1).
    if counted.schema_fields > MAX_SCHEMA_FIELDS:
        raise _over(
            "introspection", "number of `__schema` fields", counted.schema_fields, MAX_SCHEMA_FIELDS
        )
    meter = _ShapeMeter(fragments_of(document), limits.max_nesting)
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


def check_response(size: int, limits: Limits) -> None:
    """Refuse an answer of more bytes than one may have. The cost counts objects, not what
    they hold: 40 aliases of `events(first: 100) { … data }` cost 8,040 and made 105.7 MB."""
    maximum = limits.max_response_bytes
    if size > maximum:
        raise LimitExceeded(
            "response_bytes",
            size,
            maximum,
            f"The answer is {size:,} bytes long, over the limit of {maximum:,} by"
            f" {size - maximum:,}; ask for fewer or smaller items at once.",
        )
