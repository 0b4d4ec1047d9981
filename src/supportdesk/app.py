"""create_app(settings): the ASGI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount, Route

from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.graphql.executor import Executor
from supportdesk.graphql.schema import build_schema
from supportdesk.http.graphql_endpoint import GraphQLEndpoint
from supportdesk.http.health import healthz, readyz
from supportdesk.http.request_id import RequestIdMiddleware
from supportdesk.web import settings_app


def create_app(settings: Settings | None = None, db: Database | None = None) -> Starlette:
    settings = settings or Settings()
    database = db or Database(settings.database_url, settings.db_pool_size)
    schema = build_schema()
    executor = Executor(schema._schema, introspection=settings.introspection)
    endpoint = GraphQLEndpoint(executor, settings.max_body_bytes)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await database.dispose()

    app = Starlette(
        routes=[
            Route(
                "/graphql",
                endpoint.handle,
                methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
            ),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Mount("/settings", app=settings_app(settings, database)),
        ],
        middleware=[Middleware(RequestIdMiddleware)],
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.db = database
    app.state.schema = schema
    return app
