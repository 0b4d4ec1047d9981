"""Compiled answers: a read document the database answers in one statement per root field.

For a cached document, its operation and the key's scopes, a plan is made once: the
fields each root field selects (fragments merged, aliases kept), checked against what
`domain/answers` can build and what the key may read. A request then binds its variables
as parameters, runs one statement per root field, whose row is that field's JSON, and
wraps the bytes in `{"data": …}` without parsing them.

Anything a plan does not cover takes the executor, whole document: a field without a SQL
form, any directive, an object of more keys than a database's JSON object takes
(`MAX_KEYS`), a field the key may not read, a variable that does not coerce, an argument
out of range or a cursor not ours (the executor reports those), an object not found (the
executor answers NOT_FOUND), and a statement the database refuses as nested too deep
(SQLite before 3.46 parses some six levels of objects in objects; the plan then keeps to
the executor). So every error, its path and null propagation stay the executor's.
`SUPPORTDESK_COMPILED_READS=false` turns it all off.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

import orjson
from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLSchema,
    GraphQLUnionType,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
)
from graphql.execution.values import get_argument_values, get_variable_values

from supportdesk.auth.authenticate import key_check_parameters
from supportdesk.auth.permissions import PERMISSIONS, guards_of, is_allowed, refusal
from supportdesk.auth.principal import Principal
from supportdesk.db.answers import MAX_KEYS
from supportdesk.domain.answers.objects import RELATION_ARGUMENTS, SCALARS, covers
from supportdesk.domain.answers.roots import (
    SINGLE_ROOTS,
    AnswerTooDeep,
    ListAnswer,
    SingleAnswer,
    account_list,
    article_list,
    contact_list,
    issue_list,
)
from supportdesk.domain.answers.selection import TYPENAME, Given, Picked, argument_name
from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.ids import is_id_of
from supportdesk.domain.issues import VISIBILITIES
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.accounts import AccountFilter
from supportdesk.graphql.articles import ArticleFilter
from supportdesk.graphql.contacts import ContactFilter
from supportdesk.graphql.context import Context
from supportdesk.graphql.issues import IssueFilter, issue_order_of

# The parts of a connection, its edges and its page info.
_STRUCTURE = {
    "Connection": frozenset({"edges", "pageInfo", "totalCount"}),
    "Edge": frozenset({"cursor", "node"}),
    "PageInfo": frozenset({"hasNextPage", "endCursor", "hasPreviousPage", "startCursor"}),
}
_ROOT_ARGUMENTS = {
    "issues": frozenset({"first", "after", "filter", "orderBy"}),
    "contacts": frozenset({"first", "after", "filter"}),
    "accounts": frozenset({"first", "after", "filter"}),
    "articles": frozenset({"first", "after", "filter"}),
    **{root: frozenset({argument}) for root, (_, _, argument) in SINGLE_ROOTS.items()},
}
# Relations nested in relations, at most: each is a few levels of sub-selects. SQLite's
# parser stops at a fixed depth; a statement it refuses all the same (a connection in a
# connection in a connection) makes the plan the executor's (AnswerTooDeep).
MAX_DEPTH = 3
# Plans kept per cached document (operations × scope sets).
PLANS_PER_DOCUMENT = 32


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")
# Each list root: its filter's input type, and what answers it.
_LISTS: dict[str, tuple[Any, Any]] = {
    "issues": (IssueFilter, None),
    "contacts": (ContactFilter, contact_list),
    "accounts": (AccountFilter, account_list),
    "articles": (ArticleFilter, article_list),
}


def _domain_filter(input_type: Any, given: dict[str, Any]) -> Any:
    """The domain's filter from a filter argument as graphql-core coerces it (a dict by
    GraphQL names), through the input type's own `to_domain`, as the resolver reads it."""
    names = {_CAMEL.sub("_", name).lower(): value for name, value in given.items()}
    return input_type(**names).to_domain()


class _NotCompiled(Exception):
    pass


def _structure_of(type_name: str) -> str | None:
    if type_name == "PageInfo":
        return "PageInfo"
    for suffix in ("Connection", "Edge"):
        if type_name.endswith(suffix) and type_name[: -len(suffix)] in SCALARS:
            return suffix
    return None


def _named(type_: GraphQLOutputType) -> Any:
    while isinstance(type_, GraphQLNonNull | GraphQLList):
        type_ = type_.of_type
    return type_


@dataclass(frozen=True, slots=True)
class _Argued:
    """A field whose arguments a request binds: a connection relation or a root field."""

    picked: Picked
    definition: GraphQLField
    node: FieldNode


@dataclass(slots=True)
class RootPlan:
    key: str
    field: str
    picked: Picked
    argued: tuple[_Argued, ...]
    single: SingleAnswer | None
    listed: ListAnswer | None = None
    prefix: bytes = b""  # `"key":`

    def __post_init__(self) -> None:
        self.prefix = orjson.dumps(self.key) + b":"


@dataclass(slots=True)
class Plan:
    operation: OperationDefinitionNode
    roots: tuple[RootPlan, ...]
    # Set when the database refused a statement of the plan as nested too deep: from then
    # on the executor answers the plan's requests.
    too_deep: bool = False


class _Walk:
    def __init__(
        self,
        schema: GraphQLSchema,
        fragments: dict[str, FragmentDefinitionNode],
        principal: Principal,
    ) -> None:
        self.schema = schema
        self.fragments = fragments
        self.principal = principal
        self.numbers = itertools.count()
        self.argued: list[_Argued] = []
        self.depth = 0

    def _applies(self, condition: str | None, type_: GraphQLObjectType) -> bool:
        if condition is None or condition == type_.name:
            return True
        named = self.schema.get_type(condition)
        if isinstance(named, GraphQLInterfaceType | GraphQLUnionType):
            return self.schema.is_sub_type(named, type_)
        return False

    def _collect(
        self, selections: list[SelectionSetNode], type_: GraphQLObjectType
    ) -> dict[str, list[FieldNode]]:
        grouped: dict[str, list[FieldNode]] = {}

        def visit(selection_set: SelectionSetNode) -> None:
            for selection in selection_set.selections:
                if selection.directives:
                    raise _NotCompiled
                if isinstance(selection, FieldNode):
                    key = selection.alias.value if selection.alias else selection.name.value
                    grouped.setdefault(key, []).append(selection)
                elif isinstance(selection, InlineFragmentNode):
                    condition = selection.type_condition
                    if self._applies(condition.name.value if condition else None, type_):
                        visit(selection.selection_set)
                elif isinstance(selection, FragmentSpreadNode):
                    fragment = self.fragments[selection.name.value]
                    if fragment.directives:
                        raise _NotCompiled
                    if self._applies(fragment.type_condition.name.value, type_):
                        visit(fragment.selection_set)

        for selection_set in selections:
            visit(selection_set)
        return grouped

    def picks(
        self, selections: list[SelectionSetNode], type_: GraphQLObjectType
    ) -> tuple[Picked, ...]:
        collected = self._collect(selections, type_)
        if len(collected) > MAX_KEYS:  # more than one JSON object of the database holds
            raise _NotCompiled
        found = []
        for key, nodes in collected.items():
            found.append(self.pick(key, nodes, type_))
        return tuple(found)

    def pick(self, key: str, nodes: list[FieldNode], parent: GraphQLObjectType) -> Picked:
        name = nodes[0].name.value
        number = next(self.numbers)
        if name == TYPENAME:
            return Picked(key, TYPENAME, number)
        structure = _structure_of(parent.name)
        if structure is not None:
            if name not in _STRUCTURE[structure]:
                raise _NotCompiled
            allowed: frozenset[str] = frozenset()
        elif covers(parent.name, name):
            allowed = RELATION_ARGUMENTS.get((parent.name, name), frozenset())
        else:
            raise _NotCompiled
        # A field the key may not read (a person's e-mail included) is the executor's:
        # it answers null there with FORBIDDEN.
        if refusal(self.principal, guards_of(parent.name, name)) is not None:
            raise _NotCompiled
        arguments = frozenset(argument.name.value for argument in nodes[0].arguments or ())
        if not arguments <= allowed:
            raise _NotCompiled
        definition = parent.fields[name]
        relation = structure is None and (parent.name, name) in RELATION_ARGUMENTS
        if relation:
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise _NotCompiled
        objects = self._objects(definition.type, nodes)
        if relation:
            self.depth -= 1
        picked = Picked(key, name, number, arguments, objects)
        if RELATION_ARGUMENTS.get((parent.name, name)):
            self.argued.append(_Argued(picked, definition, nodes[0]))
        return picked

    def _objects(
        self, type_: GraphQLOutputType, nodes: list[FieldNode]
    ) -> dict[str, tuple[Picked, ...]] | None:
        named = _named(type_)
        selections = [node.selection_set for node in nodes if node.selection_set]
        if isinstance(named, GraphQLObjectType):
            return {named.name: self.picks(selections, named)}
        if isinstance(named, GraphQLUnionType | GraphQLInterfaceType):
            return {
                possible.name: self.picks(selections, possible)
                for possible in self.schema.get_possible_types(named)
            }
        return None


def make_plan(
    schema: GraphQLSchema,
    fragments: dict[str, FragmentDefinitionNode],
    operation: OperationDefinitionNode,
    principal: Principal,
) -> Plan | None:
    """The plan of a read operation for a key with these scopes; None when any part of
    it does not compile."""
    if operation.operation is not OperationType.QUERY or operation.directives:
        return None
    query_type = schema.query_type
    assert query_type is not None
    walk = _Walk(schema, fragments, principal)
    roots = []
    try:
        for key, nodes in walk._collect([operation.selection_set], query_type).items():
            name = nodes[0].name.value
            if name == TYPENAME:
                roots.append(RootPlan(key, TYPENAME, Picked(key, TYPENAME, -1), (), None))
                continue
            if name not in _ROOT_ARGUMENTS:
                return None
            required = PERMISSIONS[f"Query.{name}"]
            if not is_allowed(principal, required):
                return None
            walk.argued = []
            definition = query_type.fields[name]
            picked = Picked(
                key,
                name,
                next(walk.numbers),
                frozenset(a.name.value for a in nodes[0].arguments or ()),
                walk._objects(definition.type, nodes),
            )
            if not picked.arguments <= _ROOT_ARGUMENTS[name]:
                return None
            argued = (_Argued(picked, definition, nodes[0]), *walk.argued)
            single = SingleAnswer(name, picked) if name in SINGLE_ROOTS else None
            listed = ListAnswer(picked) if name in _LISTS else None
            roots.append(RootPlan(key, name, picked, argued, single, listed))
    except _NotCompiled:
        return None
    return Plan(operation, tuple(roots))


@dataclass(slots=True)
class _Bound:
    given: set[tuple[int, str]] = field(default_factory=set)
    parameters: dict[str, Any] = field(default_factory=dict)

    def bind(self, picked: Picked, argument: str, value: Any) -> None:
        self.given.add((picked.number, argument))
        self.parameters[argument_name(picked.number, argument)] = value


def _bind_relation(
    bound: _Bound, argued: _Argued, values: dict[str, Any], context: Context
) -> None:
    page = PageRequest.of(values.get("first"), values.get("after"), context.cursors)
    bound.bind(argued.picked, "first", page.first)
    bound.bind(argued.picked, "limit", page.first + 1)
    if page.after is not None:
        if ":" in page.after:  # a position of another order
            raise InvalidArgument("not an id cursor")
        bound.bind(argued.picked, "after", page.after)
    visibility = values.get("visibility")
    if visibility is not None:
        if visibility not in VISIBILITIES:
            raise InvalidArgument("`visibility` is `public` or `internal`.")
        bound.bind(argued.picked, "visibility", visibility)


class CompiledReads:
    """Plans, kept with each cached document, and the requests that run them."""

    def __init__(self, schema: GraphQLSchema) -> None:
        self.schema = schema

    def plan(
        self,
        plans: dict[Any, Plan | None],
        document_fragments: dict[str, FragmentDefinitionNode],
        operation: OperationDefinitionNode,
        principal: Principal,
    ) -> Plan | None:
        key = (id(operation), principal.scopes, principal.is_legacy)
        if key in plans:
            return plans[key]
        plan = make_plan(self.schema, document_fragments, operation, principal)
        if len(plans) < PLANS_PER_DOCUMENT:
            plans[key] = plan
        return plan

    async def answer(
        self, plan: Plan, variables: dict[str, Any] | None, context: Context
    ) -> bytes | None:
        """The `data` of the answer as JSON bytes, or None: the executor answers."""
        if plan.too_deep:
            return None
        coerced = get_variable_values(
            self.schema, plan.operation.variable_definitions or (), variables or {}
        )
        if isinstance(coerced, list) or getattr(coerced, "errors", None):
            return None
        variable_values = getattr(coerced, "variable_values", coerced)
        parts: list[bytes] = []
        for root in plan.roots:
            if root.field == TYPENAME:
                value: str | None = '"Query"'
            else:
                try:
                    value = await self._root(root, variable_values, context)
                except InvalidArgument:
                    return None
                except AnswerTooDeep:
                    plan.too_deep = True
                    return None
            if value is None:
                return None
            parts.append(root.prefix + value.encode())
        return b"{" + b",".join(parts) + b"}"

    async def _root(self, root: RootPlan, variable_values: Any, context: Context) -> str | None:
        bound = _Bound()
        bound.parameters["workspace_id"] = context.workspace_id
        bound.parameters.update(context.cursors.signing_parameters())
        bound.parameters.update(key_check_parameters(context.principal, context.now))
        root_values: dict[str, Any] = {}
        for index, argued in enumerate(root.argued):
            values = get_argument_values(argued.definition, argued.node, variable_values)
            if index == 0:
                root_values = values
            else:
                _bind_relation(bound, argued, values, context)
        given = Given(frozenset(bound.given))
        db = context.db
        if root.single is not None:
            type_name, _, argument = SINGLE_ROOTS[root.field]
            value = root_values[argument]
            if argument == "id":
                value = str(value)
                if not is_id_of(value, type_name):
                    return None
            bound.bind(root.picked, argument, value)
            return await root.single.run(db, given, bound.parameters)
        page = PageRequest.of(root_values.get("first"), root_values.get("after"), context.cursors)
        bound.bind(root.picked, "first", page.first)
        given = Given(frozenset(bound.given))
        filter_input, list_read = _LISTS[root.field]
        where = _domain_filter(filter_input, root_values.get("filter") or {})
        if root.field == "issues":
            order = issue_order_of(root_values.get("orderBy"))
            read = issue_list(context.workspace_id, page, where, order)
        else:
            read = list_read(context.workspace_id, page, where)
        if read is None or root.listed is None:
            return None
        return await root.listed.run(db, given, bound.parameters, read)
