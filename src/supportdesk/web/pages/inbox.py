"""The agent inbox: the queue of the workspace's issues, for every member logged in."""

from __future__ import annotations

from starlette.responses import Response

from supportdesk.web.endpoint import Page


async def queue(page: Page) -> Response:
    return page.render("inbox/queue.html", section="inbox")
