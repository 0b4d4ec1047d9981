"""GET /metrics on the public port, only with SUPPORTDESK_METRICS=true (docs/operations.md):
the Prometheus scrape, summed over every worker. It asks for no key, so it must not be
reachable from public networks; `serve --metrics-port` serves it on a port of its own."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from supportdesk.observability.exposition import render


async def metrics(request: Request) -> Response:
    # Reading every worker's files is blocking work: off the event loop.
    body, content_type = await run_in_threadpool(render, request.headers.get("accept"))
    return Response(body, headers={"Content-Type": content_type})
