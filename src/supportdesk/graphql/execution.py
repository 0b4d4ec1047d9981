"""graphql-core's execution, with a shortcut for plain leaf fields.

Most fields of an answer are scalars read straight off an object (`subject`, `createdAt`,
each message's `body`). For those, graphql-core still builds a path, a resolve-info object
and walks the generic completion for every field of every list item; that bookkeeping is
most of the CPU an answer with a long thread costs. Here such a field is read and coerced
directly. Anything else (resolvers, guarded fields, objects, lists, `__typename`), and any
leaf whose value is missing, null where it may not be, or refused by its scalar, takes
graphql-core's own path, so errors, their paths and null propagation are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import (
    GraphQLLeafType,
    GraphQLNonNull,
    GraphQLObjectType,
    Undefined,
    is_leaf_type,
)
from graphql.execution.collect_fields import FieldDetailsList, GroupedFieldSet
from graphql.pyutils import Path, gather_with_cancel
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.schema.schema_converter import GraphQLCoreConverter

_STRAWBERRY_FIELD = GraphQLCoreConverter.DEFINITION_BACKREF


@dataclass(frozen=True, slots=True)
class _Leaf:
    """A scalar or enum field read with `getattr` and coerced by its type."""

    response_name: str
    attribute: str
    coerce: Any  # GraphQLLeafType.coerce_output_value
    non_null: bool
    field_details_list: FieldDetailsList


@dataclass(frozen=True, slots=True)
class _Other:
    response_name: str
    field_details_list: FieldDetailsList


_Step = _Leaf | _Other


def _step(
    parent_type: GraphQLObjectType, response_name: str, field_details_list: FieldDetailsList
) -> _Step:
    node = field_details_list[0].node
    field = parent_type.fields.get(node.name.value)  # None for __typename
    if field is None or node.arguments or not getattr(field.resolve, "_is_default", False):
        return _Other(response_name, field_details_list)
    definition = (field.extensions or {}).get(_STRAWBERRY_FIELD)
    if definition is None or definition.default_resolver is not getattr:
        return _Other(response_name, field_details_list)
    field_type = field.type
    non_null = isinstance(field_type, GraphQLNonNull)
    leaf = field_type.of_type if non_null else field_type
    if not is_leaf_type(leaf):
        return _Other(response_name, field_details_list)
    assert isinstance(leaf, GraphQLLeafType)
    return _Leaf(
        response_name,
        definition.python_name,
        leaf.coerce_output_value,
        non_null,
        field_details_list,
    )


class ExecutionContext(StrawberryGraphQLCoreExecutionContext):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # id(grouped field set) -> (the set, kept alive so its id stays unique; its steps)
        self._plans: dict[int, tuple[GroupedFieldSet, tuple[_Step, ...] | None]] = {}

    def _plan(
        self, parent_type: GraphQLObjectType, grouped_field_set: GroupedFieldSet
    ) -> tuple[_Step, ...] | None:
        cached = self._plans.get(id(grouped_field_set))
        if cached is not None:
            return cached[1]
        steps = tuple(
            _step(parent_type, name, details) for name, details in grouped_field_set.items()
        )
        plan = steps if any(isinstance(step, _Leaf) for step in steps) else None
        self._plans[id(grouped_field_set)] = (grouped_field_set, plan)
        return plan

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
                if isinstance(step, _Leaf):
                    value = _read_leaf(step, source_value)
                    if value is not Undefined:
                        results[step.response_name] = value
                        continue
                result = self.execute_field(
                    parent_type,
                    source_value,
                    step.field_details_list,
                    Path(path, step.response_name, parent_type.name),
                    position_context,
                )
                if result is not Undefined:
                    results[step.response_name] = result
                    if is_awaitable(result):
                        awaitable_fields.append(step.response_name)
        except Exception:
            if awaitable_fields:
                self.settle_in_background([results[name] for name in awaitable_fields])
            raise
        if not awaitable_fields:
            return results
        return self._gather(results, awaitable_fields)

    async def _gather(self, results: dict[str, Any], awaitable_fields: list[str]) -> Any:
        if len(awaitable_fields) == 1:
            name = awaitable_fields[0]
            results[name] = await results[name]
        else:
            values = await gather_with_cancel(*(results[name] for name in awaitable_fields))
            results.update(zip(awaitable_fields, values, strict=True))
        return results


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
