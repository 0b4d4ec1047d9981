"""Compiled answers: a read document the database answers in one statement per root field.

For a cached document, its operation and the key's scopes, a plan is made once: each root
field's selection (fragments merged, aliases kept) becomes the shape of its JSON
(db/answer_shapes.py: rows, their columns and relations, pages and their parts, each under
the key the answer must hold), from what the schema's types cover (graphql/coverage.py) and
what the key may read. A request then binds its variables as parameters, and db/ runs one
statement per root field, whose row is that field's JSON; the bytes are wrapped in
`{"data": …}` without being parsed.

Anything a plan does not cover takes the executor, whole document: a field that does not
compile, any directive, an object of more keys than a database's JSON object takes
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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLUnionType,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
)
from graphql.execution.values import get_argument_values, get_variable_values

from supportdesk.auth.authenticate import (
    KeyNoLongerActive,
    key_check_parameters,
    key_still_active,
)
from supportdesk.auth.permissions import PERMISSIONS, guards_of, is_allowed, refusal
from supportdesk.auth.principal import Principal
from supportdesk.db.answer_shapes import (
    Fact,
    Facts,
    Given,
    Items,
    Listed,
    One,
    Paged,
    Related,
    Row,
    Text,
    Value,
    parameter,
)
from supportdesk.db.answer_sql import (
    Answers,
    AnswerTooDeep,
    GuardFailed,
    OneAnswer,
    PageAnswer,
    PageStatements,
)
from supportdesk.db.answers import MAX_KEYS
from supportdesk.domain.accounts import queries as account_queries
from supportdesk.domain.articles import queries as article_queries
from supportdesk.domain.contacts import queries as contact_queries
from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.ids import is_id_of
from supportdesk.domain.issues import IssueOrder
from supportdesk.domain.issues import queries as issue_queries
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.accounts import AccountFilter
from supportdesk.graphql.articles import ArticleFilter
from supportdesk.graphql.contacts import ContactFilter
from supportdesk.graphql.context import Context
from supportdesk.graphql.coverage import (
    NARROWING_VALUES,
    TYPENAME,
    Catalogue,
    catalogue_of,
    named,
)
from supportdesk.graphql.issues import IssueFilter, issue_order_of

# Root fields of one object: the column their argument is matched with, and the argument.
SINGLE_ROOTS: dict[str, tuple[str, str]] = {
    "issue": ("id", "id"),
    "issueByNumber": ("ticket_number", "ticketNumber"),
    "contact": ("id", "id"),
    "account": ("id", "id"),
    "article": ("id", "id"),
}
# Root lists: their arguments. Each is read with its executor resolver's statements.
LIST_ROOTS: dict[str, frozenset[str]] = {
    "issues": frozenset({"first", "after", "filter", "orderBy"}),
    "contacts": frozenset({"first", "after", "filter"}),
    "accounts": frozenset({"first", "after", "filter"}),
    "articles": frozenset({"first", "after", "filter"}),
}
# Relations nested in relations, at most: each is a few levels of sub-selects. SQLite's
# parser stops at a fixed depth; a statement it refuses all the same (a connection in a
# connection in a connection) makes the plan the executor's (AnswerTooDeep).
MAX_DEPTH = 3
# Plans kept per cached document (operations × scope sets).
PLANS_PER_DOCUMENT = 32
# The issue orders whose cursors hold an issue's id (update order holds more, relevance a
# score): the others are the executor's.
_ID_ORDERS = frozenset({IssueOrder.CREATED_ASC, IssueOrder.CREATED_DESC})

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _domain_filter(input_type: Any, given: dict[str, Any]) -> Any:
    """The domain's filter from a filter argument as graphql-core coerces it (a dict by
    GraphQL names), through the input type's own `to_domain`, as the resolver reads it."""
    names = {_CAMEL.sub("_", name).lower(): value for name, value in given.items()}
    return input_type(**names).to_domain()


# A root list's page and count, as its resolver reads them, and whether newest first;
# None for a page whose cursors are not ids. Raises InvalidArgument as the resolver does.
ListRead = Callable[[str, PageRequest, dict[str, Any]], tuple[PageStatements, bool] | None]


def _issue_list(
    workspace_id: str, page: PageRequest, arguments: dict[str, Any]
) -> tuple[PageStatements, bool] | None:
    where = _domain_filter(IssueFilter, arguments.get("filter") or {})
    order = issue_queries.list_order(where, issue_order_of(arguments.get("orderBy")))
    if order not in _ID_ORDERS:
        return None
    statements = issue_queries.list_query(workspace_id, page, where, order)
    return statements, order is IssueOrder.CREATED_DESC


def _creation_order(input_type: Any, list_query: Any) -> ListRead:
    def read(
        workspace_id: str, page: PageRequest, arguments: dict[str, Any]
    ) -> tuple[PageStatements, bool]:
        where = _domain_filter(input_type, arguments.get("filter") or {})
        return list_query(workspace_id, page, where), False

    return read


_LISTS: dict[str, ListRead] = {
    "issues": _issue_list,
    "contacts": _creation_order(ContactFilter, contact_queries.list_query),
    "accounts": _creation_order(AccountFilter, account_queries.list_query),
    # A search's statements hold its words: they are built for one request and not run.
    "articles": _creation_order(ArticleFilter, article_queries.list_query),
}


class _NotCompiled(Exception):
    pass


@dataclass(frozen=True, slots=True)
class _Argued:
    """A field whose arguments a request binds: a page or a root field."""

    number: int
    definition: GraphQLField
    node: FieldNode


@dataclass(slots=True)
class RootPlan:
    key: str
    field: str
    number: int
    argued: tuple[_Argued, ...]
    one: OneAnswer | None = None
    page: PageAnswer | None = None
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
    """A selection made into the shape of its answer."""

    def __init__(
        self,
        schema: GraphQLSchema,
        catalogue: Catalogue,
        fragments: dict[str, FragmentDefinitionNode],
        principal: Principal,
    ) -> None:
        self.schema = schema
        self.catalogue = catalogue
        self.fragments = fragments
        self.principal = principal
        self.numbers = itertools.count()
        self.argued: list[_Argued] = []
        self.depth = 0

    def _applies(self, condition: str | None, type_: GraphQLObjectType) -> bool:
        if condition is None or condition == type_.name:
            return True
        named_type = self.schema.get_type(condition)
        if isinstance(named_type, GraphQLInterfaceType | GraphQLUnionType):
            return self.schema.is_sub_type(named_type, type_)
        return False

    def collect(
        self,
        nodes: list[FieldNode] | list[SelectionSetNode],
        type_: GraphQLObjectType,
        bounded: bool = True,
    ) -> dict[str, list[FieldNode]]:
        """The fields selected of `type_` under these fields (or selection sets), by key;
        `bounded`: an object's, at most as many as a database's JSON object holds (the
        root fields are not: each is a statement of its own)."""
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

        for node in nodes:
            selection_set = node if isinstance(node, SelectionSetNode) else node.selection_set
            if selection_set is not None:
                visit(selection_set)
        if bounded and len(grouped) > MAX_KEYS:
            raise _NotCompiled
        return grouped

    def _checked(self, parent: GraphQLObjectType, nodes: list[FieldNode]) -> frozenset[str]:
        """The arguments given to a field the key may read. A field it may not read (a
        person's e-mail included) is the executor's: it answers null there, FORBIDDEN."""
        if refusal(self.principal, guards_of(parent.name, nodes[0].name.value)) is not None:
            raise _NotCompiled
        return frozenset(argument.name.value for argument in nodes[0].arguments or ())

    def row(self, nodes: list[FieldNode], type_: Any) -> Row:
        table = self.catalogue.tables.get(type_.name)
        if table is None or not isinstance(type_, GraphQLObjectType):
            raise _NotCompiled
        keys = tuple(
            (key, self._value(picked, type_)) for key, picked in self.collect(nodes, type_).items()
        )
        return Row(table, keys)

    def _value(self, nodes: list[FieldNode], parent: GraphQLObjectType) -> Value:
        name = nodes[0].name.value
        if name == TYPENAME:
            return Text(parent.name)
        compiles = self.catalogue.compiles(parent.name, name)
        if compiles is None:
            raise _NotCompiled
        arguments = self._checked(parent, nodes)
        if not arguments <= compiles.arguments:
            raise _NotCompiled
        if compiles.column is not None:
            return compiles.column
        assert compiles.relation is not None
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _NotCompiled
        definition = parent.fields[name]
        target = named(definition.type)
        value: Value
        if compiles.yields is Paged:
            number = next(self.numbers)
            self.argued.append(_Argued(number, definition, nodes[0]))
            value = self.page(compiles.relation, number, nodes, target)
        elif compiles.yields is Listed:
            value = Listed(compiles.relation, self.row(nodes, target))
        else:
            members = (
                self.schema.get_possible_types(target)
                if isinstance(target, GraphQLUnionType)
                else [target]
            )
            value = Related(compiles.relation, tuple(self.row(nodes, m) for m in members))
        self.depth -= 1
        return value

    def page(
        self, relation: str | None, number: int, nodes: list[FieldNode], connection: Any
    ) -> Paged:
        edge = named(connection.fields["edges"].type)
        node_type = named(edge.fields["node"].type)
        table = self.catalogue.tables.get(node_type.name)
        if table is None:
            raise _NotCompiled
        keys = tuple(
            (key, self._part(picked, connection))
            for key, picked in self.collect(nodes, connection).items()
        )
        return Paged(table, relation, number, keys)

    def _part(self, nodes: list[FieldNode], parent: GraphQLObjectType) -> Any:
        """A part of a connection, an edge or a page info: a fact, or an object of parts."""
        name = nodes[0].name.value
        if name == TYPENAME:
            return Text(parent.name)
        parts = self.catalogue.parts.get(parent.name, {})
        if name not in parts or self._checked(parent, nodes):
            raise _NotCompiled  # not a part, or given arguments: parts take none
        part = parts[name]
        if isinstance(part, Fact):
            return part
        target = named(parent.fields[name].type)
        if part is None:  # an edge's node: the row
            return self.row(nodes, target)
        keys = tuple(
            (key, self._part(picked, target)) for key, picked in self.collect(nodes, target).items()
        )
        return Items(keys) if part is Items else Facts(keys)


def make_plan(
    schema: GraphQLSchema,
    catalogue: Catalogue,
    fragments: dict[str, FragmentDefinitionNode],
    operation: OperationDefinitionNode,
    principal: Principal,
    answers: Answers,
) -> Plan | None:
    """The plan of a read operation for a key with these scopes; None when any part of
    it does not compile."""
    if operation.operation is not OperationType.QUERY or operation.directives:
        return None
    query_type = schema.query_type
    assert query_type is not None
    walk = _Walk(schema, catalogue, fragments, principal)
    roots = []
    try:
        for key, nodes in walk.collect([operation.selection_set], query_type, False).items():
            name = nodes[0].name.value
            if name == TYPENAME:
                roots.append(RootPlan(key, TYPENAME, -1, ()))
                continue
            if name not in SINGLE_ROOTS and name not in LIST_ROOTS:
                return None
            if not is_allowed(principal, PERMISSIONS[f"Query.{name}"]):
                return None
            walk.argued = []
            definition = query_type.fields[name]
            number = next(walk.numbers)
            target = named(definition.type)
            arguments = frozenset(a.name.value for a in nodes[0].arguments or ())
            root = RootPlan(key, name, number, ())
            if name in SINGLE_ROOTS:
                column, argument = SINGLE_ROOTS[name]
                if not arguments <= {argument}:
                    return None
                row = walk.row(nodes, target)
                root.one = answers.one(One(row, column, parameter(number, argument)))
            else:
                if not arguments <= LIST_ROOTS[name]:
                    return None
                root.page = answers.page(walk.page(None, number, nodes, target))
            root.argued = (_Argued(number, definition, nodes[0]), *walk.argued)
            roots.append(root)
    except _NotCompiled:
        return None
    return Plan(operation, tuple(roots))


@dataclass(slots=True)
class _Bound:
    given: set[tuple[int, str]] = field(default_factory=set)
    parameters: dict[str, Any] = field(default_factory=dict)

    def bind(self, number: int, argument: str, value: Any) -> None:
        self.given.add((number, argument))
        self.parameters[parameter(number, argument)] = value


def _listed(connection: GraphQLField) -> str:
    """The type of the nodes a connection field lists."""
    edge = named(named(connection.type).fields["edges"].type)
    return str(named(edge.fields["node"].type).name)


def _page_of(values: dict[str, Any], connection: GraphQLField, context: Context) -> PageRequest:
    return PageRequest.of(
        values.get("first"), values.get("after"), context.cursors, _listed(connection)
    )


def _bind_page(bound: _Bound, argued: _Argued, values: dict[str, Any], context: Context) -> None:
    page = _page_of(values, argued.definition, context)
    bound.bind(argued.number, "first", page.first)
    bound.bind(argued.number, "limit", page.first + 1)
    if page.after is not None:
        if ":" in page.after:  # a position of another order
            raise InvalidArgument("not an id cursor")
        bound.bind(argued.number, "after", page.after)
    for name, allowed in NARROWING_VALUES.items():
        value = values.get(name)
        if value is not None:
            value = value.strip().lower()  # any case, as every status-like value
            if value not in allowed:
                raise InvalidArgument(f"`{name}` is not one of its values.")
            bound.bind(argued.number, name, value)


class CompiledReads:
    """Plans, kept with each cached document, and the requests that run them."""

    def __init__(self, schema: GraphQLSchema) -> None:
        self.schema = schema
        self.catalogue = catalogue_of(schema)
        # Every statement is read only while the key asking is still active.
        self.answers = Answers(key_still_active())

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
        plan = make_plan(
            self.schema, self.catalogue, document_fragments, operation, principal, self.answers
        )
        if len(plans) < PLANS_PER_DOCUMENT:
            plans[key] = plan
        return plan

    async def answer(
        self, plan: Plan, variables: dict[str, Any] | None, context: Context
    ) -> bytes | None:
        """The `data` of the answer as JSON bytes, or None: the executor answers. Raises
        KeyNoLongerActive when the key was revoked or expired since it was looked up."""
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
                except GuardFailed:
                    raise KeyNoLongerActive from None
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
                _bind_page(bound, argued, values, context)
        db = context.db
        if root.one is not None:
            _, argument = SINGLE_ROOTS[root.field]
            value = root_values[argument]
            if argument == "id":
                value = str(value)
                if not is_id_of(value, named(root.argued[0].definition.type).name):
                    return None
            bound.bind(root.number, argument, value)
            return await root.one.run(db, Given(frozenset(bound.given)), bound.parameters)
        assert root.page is not None
        page = _page_of(root_values, root.argued[0].definition, context)
        bound.bind(root.number, "first", page.first)
        read = _LISTS[root.field](context.workspace_id, page, root_values)
        if read is None:
            return None
        statements, descending = read
        given = Given(frozenset(bound.given))
        return await root.page.run(db, given, bound.parameters, statements, descending)
