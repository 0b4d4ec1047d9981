"""Running GraphQL documents: parsed and validated documents are cached, errors are shaped
to the contract, and anything unexpected is masked for the client and logged in full."""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from inspect import isawaitable
from typing import Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
    execute,
    parse,
    specified_rules,
    validate,
)
from graphql.validation import NoSchemaIntrospectionCustomRule
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from supportdesk.graphql.context import Context
from supportdesk.graphql.errors import code_of

logger = logging.getLogger("supportdesk.graphql")

CACHE_SIZE = 1024
MAX_QUERY_TOKENS = 5000


class RequestError(Exception):
    """The document cannot run at all (parse, validation, limits, operation choice)."""

    def __init__(self, code: str, errors: list[dict[str, Any]], status: int = 400) -> None:
        super().__init__(code)
        self.code = code
        self.errors = errors
        self.status = status


@dataclass(frozen=True, slots=True)
class Prepared:
    document: DocumentNode
    operations: dict[str | None, OperationDefinitionNode]

    def operation(self, name: str | None) -> OperationDefinitionNode:
        if name is None and len(self.operations) > 1:
            raise RequestError(
                "BAD_USER_INPUT",
                [
                    _error(
                        "BAD_USER_INPUT",
                        "The document has several operations: send `operationName`.",
                    )
                ],
            )
        found = (
            self.operations.get(name) if name is not None else next(iter(self.operations.values()))
        )
        if found is None:
            raise RequestError(
                "BAD_USER_INPUT", [_error("BAD_USER_INPUT", f"Unknown operation {name!r}.")]
            )
        return found


def _error(code: str, message: str, **extensions: Any) -> dict[str, Any]:
    return {"message": message, "extensions": {"code": code, **extensions}}


def _located(error: GraphQLError, code: str) -> dict[str, Any]:
    shaped = _error(code, error.message)
    if error.locations:
        shaped["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    return shaped


class Executor:
    def __init__(self, schema: GraphQLSchema, *, introspection: bool = True) -> None:
        self.schema = schema
        self.rules = list(specified_rules)
        if not introspection:
            self.rules.append(NoSchemaIntrospectionCustomRule)
        self._cache: OrderedDict[str, Prepared | RequestError] = OrderedDict()

    def prepare(self, query: str) -> Prepared:
        """Parse and validate once per distinct document; failures are cached too."""
        cached = self._cache.get(query)
        if cached is None:
            cached = self._prepare_uncached(query)
            self._cache[query] = cached
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(query)
        if isinstance(cached, RequestError):
            raise cached
        return cached

    def _prepare_uncached(self, query: str) -> Prepared | RequestError:
        try:
            document = parse(query, max_tokens=MAX_QUERY_TOKENS)
        except GraphQLError as error:
            return RequestError("GRAPHQL_PARSE_FAILED", [_located(error, "GRAPHQL_PARSE_FAILED")])
        errors = validate(self.schema, document, self.rules)
        if errors:
            return RequestError(
                "GRAPHQL_VALIDATION_FAILED",
                [_located(e, "GRAPHQL_VALIDATION_FAILED") for e in errors],
            )
        operations = {
            (d.name.value if d.name else None): d
            for d in document.definitions
            if isinstance(d, OperationDefinitionNode)
        }
        return Prepared(document, operations)

    async def run(
        self,
        prepared: Prepared,
        operation: OperationDefinitionNode,
        variables: dict[str, Any] | None,
        context: Context,
    ) -> dict[str, Any]:
        """Execute and shape the answer; raises RequestError when variables do not fit."""
        result = execute(
            self.schema,
            prepared.document,
            variable_values=variables,
            operation_name=operation.name.value if operation.name else None,
            context_value=context,
            executor_class=StrawberryGraphQLCoreExecutionContext,
            max_coercion_errors=20,
        )
        if isawaitable(result):
            result = await result
        assert isinstance(result, ExecutionResult)
        if result.data is None and result.errors and all(e.path is None for e in result.errors):
            raise RequestError(
                "BAD_USER_INPUT", [_located(e, "BAD_USER_INPUT") for e in result.errors]
            )
        body: dict[str, Any] = {}
        if result.errors:
            body["errors"] = [self.shape(error, context.request_id) for error in result.errors]
        body["data"] = result.data
        return body

    def shape(self, error: GraphQLError, request_id: str) -> dict[str, Any]:
        code, extensions = code_of(error)
        if code == "INTERNAL_SERVER_ERROR":
            logger.error(
                "unexpected error while executing",
                exc_info=error.original_error,
                extra={"request_id": request_id, "path": error.path},
            )
            shaped = _error(code, "Internal server error.", requestId=request_id)
        else:
            shaped = _error(code, error.message, **extensions)
        if error.locations:
            shaped["locations"] = [
                {"line": loc.line, "column": loc.column} for loc in error.locations
            ]
        if error.path is not None:
            shaped["path"] = error.path
        return shaped


def is_mutation(operation: OperationDefinitionNode) -> bool:
    return operation.operation is not OperationType.QUERY
