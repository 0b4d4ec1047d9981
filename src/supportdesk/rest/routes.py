"""POST /v1/issues, GET /v1/issues/{id}, PUT and GET /v1/attachments/{id}/content
(docs/attachments.md), GET /v1/events/stream (docs/events-stream.md) and
GET /v1/openapi.json (docs/rest-v1.md).

The operations run the domain's own createIssue and issue read, behind the same keys,
permission table and rate limits as GraphQL. The order of checks: the method; the key and
its rate limit; the key's scopes; the body's media type, size and syntax, or the query's
parameters; then the domain.
Every answer is JSON, and every authenticated one carries the rate-limit headers.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable

import orjson
from starlette.datastructures import MutableHeaders
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Mount, Route, Router
from starlette.types import Message, Receive, Scope, Send

from supportdesk.auth.permissions import PERMISSIONS, is_allowed
from supportdesk.auth.principal import Principal
from supportdesk.config import Settings
from supportdesk.db import DatabaseUnavailable
from supportdesk.domain import issues
from supportdesk.domain.attachments import attachments_of_messages
from supportdesk.domain.audit import key_actor
from supportdesk.domain.errors import DomainError
from supportdesk.domain.ids import is_id_of
from supportdesk.domain.pagination import MAX_PAGE_SIZE, PageRequest
from supportdesk.http.access_log import access_record
from supportdesk.http.admission import Admission
from supportdesk.http.errors import log_unavailable
from supportdesk.http.rate_limit import RateLimiter
from supportdesk.http.requests import HttpProblem, read_json
from supportdesk.rest import attachments, errors, schemas
from supportdesk.rest.errors import JSON, RestError, json_response
from supportdesk.rest.event_stream import stream_events
from supportdesk.rest.inbound_email import inbound_email
from supportdesk.rest.openapi import openapi_document

logger = logging.getLogger("supportdesk.http")

# GET /v1/issues/{id} shows the first messages of the thread, as many as one GraphQL page
# (public ones only, unless asked for internal notes too: schemas.thread_visibility).
THREAD = PageRequest(MAX_PAGE_SIZE, None)

Handler = Callable[[Request, Principal], Awaitable[Response]]
# Who is asking: the principal and the rate-limit headers of every answer from there on.
Admit = Callable[[Request], Awaitable[tuple[Principal, dict[str, str]]]]


class Endpoint:
    """An ASGI endpoint that answers every method, so that each gets our JSON 405, and the
    unexpected in the REST shape."""

    method = "GET"
    # HEAD is GET without the body (RFC 9110), for a GET that answers at once.
    answers_head = True

    def allows(self, method: str) -> bool:
        return method == self.method or (
            method == "HEAD" and self.method == "GET" and self.answers_head
        )

    @property
    def allowed(self) -> str:
        return "GET, HEAD" if self.method == "GET" and self.answers_head else self.method

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        try:
            if not self.allows(request.method):
                response = errors.method_not_allowed(self.allowed).response()
            else:
                response = await self.respond(request)
        except ClientDisconnect:
            raise  # nobody to answer
        except Exception as error:
            response = self._masked(request, error)
        await response(scope, receive, send)

    def _masked(self, request: Request, error: Exception) -> Response:
        """As ErrorMaskingMiddleware does, in the REST shape: logged in full before the
        masked answer goes out; a database out of reach in one line, answered 503."""
        request_id = request.state.request_id
        if isinstance(error, DatabaseUnavailable):
            log_unavailable(error, request_id, request.url.path)
            return errors.unavailable(request_id).response()
        fields = {"request_id": request_id, "path": request.url.path}
        logger.exception("unhandled error", extra={"fields": fields})
        return errors.internal(request_id).response()

    async def respond(self, request: Request) -> Response:
        raise NotImplementedError


class Operation(Endpoint):
    """One operation of the permission table (`REST.<name>`): admission, the scope check,
    then the handler; every refusal becomes a RestError."""

    def __init__(
        self,
        name: str,
        method: str,
        admission: Admission,
        handler: Handler,
        admit: Admit | None = None,
        *,
        answers_head: bool = True,
    ) -> None:
        self.answers_head = answers_head
        self.name = f"REST.{name}"
        self.required = PERMISSIONS[self.name]
        self.method = method
        self.admit = admit or admission.admit
        self.handler = handler

    async def respond(self, request: Request) -> Response:
        rate_limit_headers: dict[str, str] = {}
        try:
            principal, rate_limit_headers = await self.admit(request)
            access_record(request.scope).operation = self.name
            if not is_allowed(principal, self.required):
                raise errors.forbidden(self.required, principal.is_legacy)
            response = await self.handler(request, principal)
        except HttpProblem as problem:
            return errors.of_problem(problem).response(rate_limit_headers)
        except DomainError as error:
            return errors.of_domain(error, schemas.REST_NAMES).response(rate_limit_headers)
        except RestError as error:
            return error.response(rate_limit_headers)
        response.headers.update(rate_limit_headers)
        return response


class Methods(Endpoint):
    """Several operations on one path, one per method."""

    def __init__(self, *operations: Operation) -> None:
        self.operations = {operation.method: operation for operation in operations}
        self.method = ", ".join(operation.allowed for operation in operations)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        operation = next((o for o in self.operations.values() if o.allows(request.method)), None)
        if operation is None:
            await errors.method_not_allowed(self.method).response()(scope, receive, send)
        else:
            await operation(scope, receive, send)


class InboundEmail(Endpoint):
    """Not a key's operation: the mailbox's inbound token admits it (rest/inbound_email.py)."""

    method = "POST"

    def __init__(self, admission: Admission) -> None:
        self.admission = admission

    async def respond(self, request: Request) -> Response:
        return await inbound_email(request, self.admission)


class OpenAPIDocument(Endpoint):
    """The document needs no key: it says how to call, nothing about any workspace."""

    def __init__(self) -> None:
        self.body = orjson.dumps(openapi_document())

    async def respond(self, request: Request) -> Response:
        return Response(self.body, media_type=JSON)


def create_issue(settings: Settings) -> Handler:
    async def handler(request: Request, principal: Principal) -> Response:
        data = await read_json(request, settings.max_body_bytes)
        new = schemas.new_issue(data, request.headers.get(schemas.IDEMPOTENCY_HEADER))
        actor = key_actor(principal, request.client.host if request.client else None)
        issue = await issues.create_issue(request.app.state.db, actor, principal.workspace_id, new)
        location = {"Location": f"/v1/issues/{issue.id}"}
        return json_response(schemas.issue_json(issue), 201, location)

    return handler


async def get_issue(request: Request, principal: Principal) -> Response:
    issue_id = request.path_params["id"]
    visibility = schemas.thread_visibility(request.query_params)
    db, workspace_id = request.app.state.db, principal.workspace_id
    found = (
        await issues.fetch_issues(db, workspace_id, [issue_id])
        if is_id_of(issue_id, "Issue")
        else {}
    )
    issue = found.get(issue_id)
    if issue is None:
        raise errors.not_found("Issue not found.")
    thread = (await issues.fetch_threads(db, workspace_id, [issue_id], THREAD, visibility))[
        issue_id
    ].items
    files = await attachments_of_messages(db, workspace_id, [m.id for m in thread])
    base_url = attachments.base_url_of(request)
    return json_response(schemas.issue_with_messages_json(issue, thread, files, base_url))


async def _no_such_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
    response = errors.not_found("No such endpoint; see /v1/openapi.json.").response()
    await response(scope, receive, send)


class _NoStore:
    """Every answer under /v1 says `Cache-Control: no-store`: an issue's thread holds a
    customer's words, and no proxy or browser cache is to keep them, nor any error."""

    def __init__(self, app: Router) -> None:
        self.app = app
        self.routes = app.routes  # as Mount reads them, for url_path_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_no_store(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("cache-control", "no-store")
            await send(message)

        await self.app(scope, receive, send_no_store)


class _Prefix(Mount):
    """A Mount that holds every path under its prefix: Mount's own pattern stops at a
    newline (a `%0A` in the path), which would leave such a path to the plain-text 404 of
    the application instead of ours."""

    def __init__(self, path: str, app: Router) -> None:
        super().__init__(path, app=_NoStore(app))
        self.path_regex = re.compile(self.path_regex.pattern, re.DOTALL)


def rest_mount(settings: Settings, limiter: RateLimiter) -> Mount:
    """The routes under /v1. A Router, not an application: the request keeps the main
    application, whose state holds the database."""
    admission = Admission(settings, limiter)
    router = Router(
        routes=[
            Route(
                "/issues",
                Operation("createIssue", "POST", admission, create_issue(settings)),
            ),
            Route("/issues/{id}", Operation("getIssue", "GET", admission, get_issue)),
            Route(
                "/attachments/{id}/content",
                Methods(
                    Operation("uploadAttachment", "PUT", admission, attachments.upload),
                    Operation(
                        "downloadAttachment",
                        "GET",
                        admission,
                        attachments.download,
                        attachments.readers(admission),
                    ),
                ),
            ),
            Route(
                "/events/stream",
                Operation("streamEvents", "GET", admission, stream_events, answers_head=False),
            ),
            # Raw mail from a provider, behind a mailbox's inbound token (docs/email.md).
            Route("/inbound-email", InboundEmail(admission)),
            Route("/openapi.json", OpenAPIDocument()),
        ],
        redirect_slashes=False,
        default=_no_such_endpoint,
    )
    return _Prefix("/v1", router)
