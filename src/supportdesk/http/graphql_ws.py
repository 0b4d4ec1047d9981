"""WebSocket /graphql: subscriptions over the graphql-transport-ws protocol, with
Strawberry's own handler of the protocol (pings, `connection_init`'s time-out, operation
ids, close codes). POST and GET /graphql never come here: they are http routes of
their own (graphql_endpoint.py), this is a websocket route at the same path.

The key travels in `connection_init`'s payload, `{"authorization": "Bearer <key>"}`; a
missing, wrong, revoked or expired key, or one past its rate limit, closes the connection
with 4403 Forbidden, as the protocol says. Opening a connection counts as one request
against the key's rate limit."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any, cast

from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.schema import BaseSchema
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types.unset import UnsetType

from supportdesk.graphql.streams import Caller, SubscriptionRunner
from supportdesk.http.admission import Admission, Bearer
from supportdesk.http.request_id import incoming_or_new
from supportdesk.http.requests import HttpProblem

# How long a connection may stay open before its `connection_init` (then 4408).
INIT_SECONDS = 10


class WebSocketCaller(Caller):
    """The caller of one connection; the handshake request it came with, to authenticate."""

    __slots__ = ("connection",)

    def __init__(self, connection: HTTPConnection) -> None:
        client = connection.client
        super().__init__(incoming_or_new(connection.scope["headers"]), client and client.host)
        self.connection = connection


class GraphQLWebSocket(GraphQL[Caller, None]):
    def __init__(self, runner: SubscriptionRunner, admission: Admission) -> None:
        super().__init__(
            # Strawberry's handler calls only `stream` on the schema it is handed: the
            # runner puts each document through our checks first (graphql/streams.py).
            cast(BaseSchema, runner),
            graphql_ide=None,
            allow_queries_via_get=False,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            connection_init_wait_timeout=timedelta(seconds=INIT_SECONDS),
        )
        self.admission = admission

    async def get_context(self, request: Any, response: Any) -> Caller:
        return WebSocketCaller(cast(WebSocket, request))

    async def get_root_value(self, request: Any) -> None:
        return None

    async def on_ws_connect(self, context: Caller) -> UnsetType | dict[str, object] | None:
        assert isinstance(context, WebSocketCaller)
        params = context.connection_params
        given = params.get("authorization") if isinstance(params, dict) else None
        bearer = Bearer.given([given] if isinstance(given, str) else [])
        connection = context.connection
        try:
            principal = await self.admission.authenticate(connection, bearer)
            verdict = await self.admission.spend(principal)
            self.admission.allowed(connection, principal, verdict)
        except HttpProblem:
            raise ConnectionRejectionError from None
        context.principal = principal
        return await super().on_ws_connect(context)

    def decode_json(self, data: str | bytes) -> object:
        """A message of the protocol, or JSON's own error, which Strawberry's handler
        answers with 4400. The handler reads fields without checking their types, so a
        message of another shape is refused here rather than failing inside it."""
        message = super().decode_json(data)
        if not _is_message(message):
            raise json.JSONDecodeError("not a graphql-transport-ws message", str(data), 0)
        return message

    async def render_graphql_ide(self, request: Any) -> Response:  # never: no http route
        return Response(status_code=404)


def _is_message(message: object) -> bool:
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return False
    if message["type"] in ("subscribe", "complete") and not isinstance(message.get("id"), str):
        return False
    if message["type"] != "subscribe":
        return True
    payload = message.get("payload")
    if not isinstance(payload, dict) or not isinstance(payload.get("query"), str):
        return False
    optional = {"variables": dict, "operationName": str, "extensions": dict}
    return all(isinstance(payload.get(name), kind | None) for name, kind in optional.items())
