"""graphql-core's execution, with a shortcut for plain fields.

Most of an answer is plain fields read straight off an object: scalars (`subject`, each
message's `body`), objects (`edge.node`) and lists of objects (`edges`). For each of them,
graphql-core builds a path and a resolve-info object and walks its generic completion, for
every field of every list item; that bookkeeping was most of the CPU an answer with a long
thread cost. Here such fields are read and completed directly. Anything else (a resolver, a
guarded field, an interface, `__typename`), and any value that is missing, null where it may
not be, refused by its scalar or of the wrong type, takes graphql-core's own path, so the
answer, its errors and their paths, and null propagation are unchanged.

What does not change between requests of one cached document is worked out once and kept
with it (`DocumentPlans`): which fields take the shortcut, and (when no directive reads a
variable) the sub-fields each selection collects.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from graphql import (
    BREAK,
    DirectiveNode,
    DocumentNode,
    GraphQLLeafType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    Undefined,
    VariableNode,
    Visitor,
    is_leaf_type,
    visit,
)
from graphql.execution.collect_fields import CollectedFields, FieldDetailsList, GroupedFieldSet
from graphql.pyutils import Path, gather_with_cancel
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from supportdesk.graphql.resolution import resolution_of


@dataclass(frozen=True, slots=True)
class _Leaf:
    """A scalar or enum field read with `getattr` and coerced by its type."""

    response_name: str
    attribute: str
    coerce: Any  # GraphQLLeafType.coerce_output_value
    non_null: bool


@dataclass(frozen=True, slots=True)
class _Objects:
    """An object field, or a list of non-null objects, read with `getattr`."""

    response_name: str
    attribute: str
    object_type: GraphQLObjectType
    return_type: GraphQLOutputType
    is_list: bool


@dataclass(frozen=True, slots=True)
class _Other:
    response_name: str


_Step = _Leaf | _Objects | _Other


class _Unusual(Exception):
    """A value the shortcut does not complete itself (null where it may not be, a type
    check that fails): graphql-core's own path completes it and reports what is wrong."""


def _step(
    parent_type: GraphQLObjectType, response_name: str, field_details_list: FieldDetailsList
) -> _Step:
    other = _Other(response_name)
    node = field_details_list[0].node
    field = parent_type.fields.get(node.name.value)  # None for __typename
    if field is None or node.arguments or node.directives:
        return other
    # Only what `resolution.py` marked a plain, unguarded attribute read.
    resolution = resolution_of(field)
    attribute = resolution.shortcut_attribute if resolution else None
    if attribute is None:
        return other
    non_null = isinstance(field.type, GraphQLNonNull)
    named = field.type.of_type if non_null else field.type
    if is_leaf_type(named):
        assert isinstance(named, GraphQLLeafType)
        return _Leaf(response_name, attribute, named.coerce_output_value, non_null)
    if isinstance(named, GraphQLObjectType):
        return _Objects(response_name, attribute, named, field.type, False)
    if isinstance(named, GraphQLList) and isinstance(named.of_type, GraphQLNonNull):
        item = named.of_type.of_type
        if isinstance(item, GraphQLObjectType):
            return _Objects(response_name, attribute, item, field.type, True)
    return other


Plan = tuple[_Step, ...] | None  # None: no shortcut applies, graphql-core runs it all


class DocumentPlans:
    """What one cached document's requests share, kept with the parsed document (whose
    nodes, and so their identities, live as long as it does):

    - the plan of each selection set, known by its parent type and its field nodes;
    - when no directive of the document reads a variable, the sub-fields each field
      selects (graphql-core collects them again on every request, merging fragments).

    @skip and @include can make several sets of one selection, so the number kept is
    bounded."""

    LIMIT = 256

    def __init__(self, document: DocumentNode) -> None:
        self._plans: dict[tuple[str, tuple[int, ...]], Plan] = {}
        self.subfields: dict[tuple[str, tuple[int, ...]], CollectedFields] | None = (
            None if _directives_read_variables(document) else {}
        )

    def plan(self, parent_type: GraphQLObjectType, grouped_field_set: GroupedFieldSet) -> Plan:
        key = (
            parent_type.name,
            tuple(id(details[0].node) for details in grouped_field_set.values()),
        )
        if key in self._plans:
            return self._plans[key]
        plan = _plan_of(parent_type, grouped_field_set)
        if len(self._plans) < self.LIMIT:
            self._plans[key] = plan
        return plan


def _plan_of(parent_type: GraphQLObjectType, grouped_field_set: GroupedFieldSet) -> Plan:
    steps = tuple(_step(parent_type, name, details) for name, details in grouped_field_set.items())
    return steps if any(not isinstance(step, _Other) for step in steps) else None


class _VariablesInDirectives(Visitor):
    found = False

    def enter_directive(self, node: DirectiveNode, *_args: Any) -> Any:
        if any(isinstance(argument.value, VariableNode) for argument in node.arguments or ()):
            self.found = True
            return BREAK
        return None


def _directives_read_variables(document: DocumentNode) -> bool:
    visitor = _VariablesInDirectives()
    visit(document, visitor)
    return visitor.found


class ExecutionContext(StrawberryGraphQLCoreExecutionContext):
    """Runs a document with the shortcut. `for_document` gives the class to run one cached
    document with, which shares what it can across that document's requests."""

    document_plans: DocumentPlans | None = None

    @classmethod
    def for_document(cls, document: DocumentNode) -> type[ExecutionContext]:
        shared = DocumentPlans(document)
        return type("DocumentExecutionContext", (cls,), {"document_plans": shared})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # id(grouped field set) -> (the set, kept alive so its id stays unique; its plan)
        self._plans: dict[int, tuple[GroupedFieldSet, Plan]] = {}

    def _plan(self, parent_type: GraphQLObjectType, grouped_field_set: GroupedFieldSet) -> Plan:
        cached = self._plans.get(id(grouped_field_set))
        if cached is not None:
            return cached[1]
        shared = self.document_plans
        plan = (
            shared.plan(parent_type, grouped_field_set)
            if shared is not None
            else _plan_of(parent_type, grouped_field_set)
        )
        self._plans[id(grouped_field_set)] = (grouped_field_set, plan)
        return plan

    def collect_subfields(
        self, return_type: GraphQLObjectType, field_details_list: FieldDetailsList
    ) -> CollectedFields:
        """graphql-core's, remembered across the document's requests when it can be."""
        shared = self.document_plans.subfields if self.document_plans is not None else None
        if shared is None:
            return super().collect_subfields(return_type, field_details_list)
        memo = self._relevant_sub_fields  # graphql-core's per-request memo
        cached = memo.get((return_type, id(field_details_list)))
        if cached is not None:
            return cached[1]
        key = (return_type.name, tuple(id(details.node) for details in field_details_list))
        collected = shared.get(key)
        if collected is None:
            collected = super().collect_subfields(return_type, field_details_list)
            if len(shared) < DocumentPlans.LIMIT:
                shared[key] = collected
        memo[(return_type, id(field_details_list))] = (field_details_list, collected)
        return collected

    def execute_fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Path | None,
        grouped_field_set: GroupedFieldSet,
        position_context: Any,
    ) -> Any:
        plan = self._plan(parent_type, grouped_field_set)
        if plan is None:
            return super().execute_fields(
                parent_type, source_value, path, grouped_field_set, position_context
            )
        results: dict[str, Any] = {}
        awaitable_fields: list[str] = []
        is_awaitable = self.is_awaitable
        try:
            for step in plan:
                name = step.response_name
                if isinstance(step, _Leaf):
                    value = _read_leaf(step, source_value)
                    if value is not Undefined:
                        results[name] = value
                        continue
                details = grouped_field_set[name]
                field_path = Path(path, name, parent_type.name)
                result: Any = Undefined
                if isinstance(step, _Objects):
                    result = self._objects_field(step, details, source_value, field_path)
                if result is Undefined:
                    result = self.execute_field(
                        parent_type, source_value, details, field_path, position_context
                    )
                if result is not Undefined:
                    results[name] = result
                    if is_awaitable(result):
                        awaitable_fields.append(name)
        except Exception:
            if awaitable_fields:
                self.settle_in_background([results[name] for name in awaitable_fields])
            raise
        if not awaitable_fields:
            return results
        return _gather_fields(results, awaitable_fields)

    def _objects_field(
        self, step: _Objects, details: FieldDetailsList, source: Any, path: Path
    ) -> Any:
        """The completed object (or list of objects), an awaitable of it, or Undefined
        when graphql-core's own path must complete this field. Errors are handled as
        graphql-core's `execute_field` handles them."""
        try:
            value = getattr(source, step.attribute)
            if value is None:
                if isinstance(step.return_type, GraphQLNonNull):
                    return Undefined
                return None
            grouped = self._subfields(step, details)
            if step.is_list:
                completed = self._complete_objects(step, grouped, value, path)
            else:
                _check_type(step.object_type, value)
                completed = self.execute_fields(step.object_type, value, path, grouped, None)
        except _Unusual:
            return Undefined
        except Exception as raw_error:
            self.handle_field_error(raw_error, step.return_type, details, path)
            return None
        if self.is_awaitable(completed):
            return self._await_field(step, details, completed, path)
        return completed

    def _subfields(self, step: _Objects, details: FieldDetailsList) -> GroupedFieldSet:
        grouped, new_defer_usages, _ = self.collect_subfields(step.object_type, details)
        if new_defer_usages:
            raise _Unusual
        return grouped

    def _complete_objects(
        self, step: _Objects, grouped: GroupedFieldSet, items: Any, path: Path
    ) -> Any:
        if not isinstance(items, list | tuple):
            raise _Unusual
        object_type = step.object_type
        for item in items:  # every check first: nothing may start before a fallback
            if item is None:
                raise _Unusual
            _check_type(object_type, item)
        completed: list[Any] = []
        pending: list[int] = []
        try:
            for index, item in enumerate(items):
                result = self.execute_fields(
                    object_type, item, Path(path, index, None), grouped, None
                )
                if self.is_awaitable(result):
                    pending.append(index)
                completed.append(result)
        except Exception:
            if pending:
                self.settle_in_background([completed[index] for index in pending])
            raise
        if not pending:
            return completed
        return _gather_items(completed, pending)

    async def _await_field(
        self, step: _Objects, details: FieldDetailsList, completed: Awaitable[Any], path: Path
    ) -> Any:
        try:
            return await completed
        except Exception as raw_error:
            self.handle_field_error(raw_error, step.return_type, details, path)
            return None


def _check_type(object_type: GraphQLObjectType, value: Any) -> None:
    # Strawberry's is_type_of reads only the value; graphql-core passes the resolve info.
    is_type_of = object_type.is_type_of
    if is_type_of is not None and is_type_of(value, None) is not True:  # type: ignore[arg-type]
        raise _Unusual


async def _gather_fields(results: dict[str, Any], awaitable_fields: list[str]) -> Any:
    if len(awaitable_fields) == 1:
        name = awaitable_fields[0]
        results[name] = await results[name]
    else:
        values = await gather_with_cancel(*(results[name] for name in awaitable_fields))
        results.update(zip(awaitable_fields, values, strict=True))
    return results


async def _gather_items(completed: list[Any], pending: list[int]) -> list[Any]:
    if len(pending) == 1:  # as graphql-core does: no gathering for one
        completed[pending[0]] = await completed[pending[0]]
        return completed
    values = await gather_with_cancel(*(completed[index] for index in pending))
    for index, value in zip(pending, values, strict=True):
        completed[index] = value
    return completed


def _read_leaf(step: _Leaf, source: Any) -> Any:
    """The coerced value, or Undefined to let graphql-core's path handle (and report) it."""
    try:
        value = getattr(source, step.attribute)
        if value is None:
            return Undefined if step.non_null else None
        coerced = step.coerce(value)
    except Exception:
        return Undefined
    return Undefined if coerced is None else coerced
