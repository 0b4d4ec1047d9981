"""Running a subscription for a streaming transport (graphql-transport-ws, graphql-sse):
the document goes through the same checks as any request (parse, limits, validation,
cost), must be a subscription, and then runs through Strawberry's `schema.subscribe`.
Every error of every payload leaves in the API's shape, the unexpected masked and logged.

`SubscriptionRunner.stream` has the signature of Strawberry's `Schema.stream`, which is
all that Strawberry's WebSocket handler calls on the schema it is given
(http/graphql_ws.py); graphql-sse (http/graphql_sse.py) iterates it the same way."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.types.execution import ExecutionResult, PreExecutionError

from supportdesk.auth.principal import Principal
from supportdesk.db import Database
from supportdesk.domain.clock import now
from supportdesk.domain.pagination import Cursors
from supportdesk.graphql.context import Context
from supportdesk.graphql.documents import DocumentRunner, RequestError
from supportdesk.live import LiveEvents

Result = ExecutionResult | PreExecutionError


class ShapedError(GraphQLError):
    """An error already in the API's shape: transports send `formatted` as it is."""

    def __init__(self, shaped: dict[str, Any]) -> None:
        super().__init__(shaped["message"], extensions=shaped.get("extensions"))
        self.shaped = shaped

    @property
    def formatted(self) -> dict[str, Any]:  # type: ignore[override]
        return self.shaped


@dataclass(slots=True)
class Caller:
    """Who runs the subscription: the transport authenticated `principal` (the WebSocket
    handler sets it at `connection_init`)."""

    request_id: str
    client_ip: str | None
    principal: Principal | None = None
    # Strawberry's WebSocket handler puts connection_init's payload here.
    connection_params: Any = None


def only_subscriptions() -> RequestError:
    return RequestError(
        "BAD_USER_INPUT",
        [
            {
                "message": "Only subscriptions run here; send queries and mutations to"
                " POST /graphql.",
                "extensions": {"code": "BAD_USER_INPUT"},
            }
        ],
    )


class SubscriptionRunner:
    def __init__(
        self,
        schema: strawberry.Schema,
        documents: DocumentRunner,
        db: Database,
        live: LiveEvents,
        cursor_key: Callable[[], Awaitable[bytes]],
    ) -> None:
        self.schema = schema
        self.documents = documents
        self.db = db
        self.live = live
        self.cursor_key = cursor_key

    async def stream(
        self,
        query: str | None,
        variable_values: dict[str, Any] | None = None,
        context_value: Caller | None = None,
        root_value: Any = None,
        operation_name: str | None = None,
        **_ignored: Any,
    ) -> AsyncGenerator[Result, None]:
        """The payloads of the subscription; a document refused before it runs gives one
        PreExecutionError."""
        assert context_value is not None and context_value.principal is not None
        caller = context_value
        try:
            context = self._checked(query, variable_values, operation_name, caller)
            assert caller.principal is not None
            context.cursors = Cursors(await self.cursor_key(), caller.principal.workspace_id)
        except RequestError as refused:
            return self._refused(refused)
        results = await self.schema.subscribe(
            query, variable_values, context, operation_name=operation_name
        )
        return self._shaped(results, caller.request_id)

    def _checked(
        self,
        query: str | None,
        variables: dict[str, Any] | None,
        operation_name: str | None,
        caller: Caller,
    ) -> Context:
        """The context to run in, once the document passed every check a request's
        does; raises RequestError."""
        assert caller.principal is not None
        if not isinstance(query, str) or not query:
            raise RequestError(
                "BAD_USER_INPUT",
                [{"message": "Send a `query`.", "extensions": {"code": "BAD_USER_INPUT"}}],
            )
        prepared = self.documents.prepare(query)
        operation = prepared.operation(operation_name)
        if not operation.is_subscription:
            raise only_subscriptions()
        cost = self.documents.cost(operation, variables)
        self.documents.check_variables(variables, cost)
        principal = caller.principal
        return Context(
            db=self.db,
            principal=principal,
            request_id=caller.request_id,
            now=now(),
            cursors=Cursors(b"", principal.workspace_id),  # its key: in `stream`
            client_ip=caller.client_ip,
            live=self.live,
        )

    @staticmethod
    async def _refused(refused: RequestError) -> AsyncGenerator[Result, None]:
        yield PreExecutionError(data=None, errors=[ShapedError(e) for e in refused.errors])

    async def _shaped(
        self, results: AsyncGenerator[Any, None], request_id: str
    ) -> AsyncGenerator[Result, None]:
        try:
            async for result in results:
                if result.errors:
                    result.errors = [
                        ShapedError(self.documents.shape(error, request_id))
                        for error in result.errors
                    ]
                yield result
        finally:
            await results.aclose()
