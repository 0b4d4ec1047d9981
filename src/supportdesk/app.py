"""create_app(settings): the ASGI application."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route, WebSocketRoute

from supportdesk.auth.server_key import ServerKey
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.domain.email.intake import MailIntake
from supportdesk.domain.webhooks.endpoints import EndpointPolicy
from supportdesk.domain.webhooks.setup import WebhookSetup
from supportdesk.graphql.documents import DocumentRunner
from supportdesk.graphql.limits import Limits
from supportdesk.graphql.schema import build_schema
from supportdesk.graphql.streams import SubscriptionRunner
from supportdesk.http.access_log import AccessLogMiddleware
from supportdesk.http.errors import ErrorMaskingMiddleware
from supportdesk.http.graphql_endpoint import GraphQLEndpoint
from supportdesk.http.graphql_sse import GraphQLStreamEndpoint
from supportdesk.http.graphql_ws import GraphQLWebSocket
from supportdesk.http.health import healthz, readyz
from supportdesk.http.metrics import metrics
from supportdesk.http.rate_limit import rate_limiter
from supportdesk.http.request_id import RequestIdMiddleware
from supportdesk.live import LiveEvents
from supportdesk.observability.exposition import metrics_enabled
from supportdesk.observability.metrics import RequestMetrics, StreamMetrics, watch_database
from supportdesk.rest import rest_mount
from supportdesk.smtp.listener import SmtpListener
from supportdesk.storage import storage_for
from supportdesk.web import not_found_anywhere, web_routes


def create_app(settings: Settings | None = None, db: Database | None = None) -> Starlette:
    settings = settings or Settings()
    database = db or Database(settings.database_url, settings.db_pool_size)
    schema = build_schema()
    limits = Limits(
        max_depth=settings.max_depth,
        max_aliases=settings.max_aliases,
        max_cost=settings.max_cost,
        max_directives=settings.max_directives,
        max_directives_per_location=settings.max_directives_per_location,
        max_tokens=settings.max_tokens,
        max_query_bytes=settings.max_query_bytes,
        max_response_bytes=settings.max_response_bytes,
    )
    executor = DocumentRunner(schema._schema, limits, introspection=settings.introspection)
    limiter = rate_limiter(settings.redis_url, settings.rate_limit_prefix)
    server_key = ServerKey(settings.secret_key, database)
    endpoint = GraphQLEndpoint(executor, settings, limiter, server_key)
    measured = metrics_enabled(settings)
    request_metrics = RequestMetrics() if measured else None
    if request_metrics is not None:
        watch_database(database)
    live = LiveEvents(database, settings, StreamMetrics() if measured else None)
    subscriptions = SubscriptionRunner(schema, executor, database, live, endpoint.cursor_key)

    storage = storage_for(settings)
    mail = MailIntake(
        database,
        server_key,
        storage,
        settings.email_max_bytes,
        settings.attachment_max_bytes,
    )
    smtp = SmtpListener(mail, settings.smtp_listen) if settings.smtp_listen else None

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # Webhooks are not delivered here: a dispatcher process does it (dispatch/role.py).
        await live.start()
        if smtp is not None:
            await smtp.start()
        yield
        if smtp is not None:
            await smtp.stop()
        await live.stop()
        await limiter.close()
        await database.dispose()
        if app.state.tracing is not None:
            app.state.tracing.shutdown()  # sends the spans still waiting

    app = Starlette(
        routes=[
            # An ASGI endpoint: every method reaches it, so each gets our JSON 405.
            Route("/graphql", endpoint),
            # Subscriptions (docs/events-stream.md): the same path over WebSocket, and SSE.
            WebSocketRoute("/graphql", GraphQLWebSocket(subscriptions, endpoint.admission)),
            Route(
                "/graphql/stream",
                GraphQLStreamEndpoint(subscriptions, endpoint.admission, settings),
            ),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            # No key asked: only where the operator says (docs/operations.md).
            *([Route("/metrics", metrics)] if settings.metrics else []),
            rest_mount(settings, limiter),
            # The pages people log in to: the inbox and the settings (docs/inbox.md).
            *web_routes(settings, database, server_key, live),
        ],
        # Outermost first: every answer, a masked 500 included, has a request id and a log line.
        middleware=[
            Middleware(RequestIdMiddleware),
            Middleware(AccessLogMiddleware, metrics=request_metrics),
            Middleware(ErrorMaskingMiddleware),
        ],
        exception_handlers={404: not_found_anywhere()},
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.db = database
    # Attachments' bytes (docs/attachments.md).
    app.state.storage = storage
    # The e-mail channel's doors (docs/email.md): the pipeline, and the SMTP listener.
    app.state.mail = mail
    app.state.smtp = smtp
    app.state.schema = schema
    app.state.limiter = limiter
    app.state.live = live
    app.state.tracing = None
    app.state.webhooks = WebhookSetup(
        server_key, EndpointPolicy(allow_private=settings.webhook_allow_private)
    )
    if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        from supportdesk.http.tracing import instrument  # the otel extra: loaded only when on

        app.state.tracing = instrument(app, database)
    return app
