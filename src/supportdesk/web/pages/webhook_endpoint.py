"""One webhook endpoint: its recent deliveries, and what an org admin does to it (enable or
disable, send a test, redeliver, replay, rotate the secret, delete after confirming)."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.responses import Response

from supportdesk.domain.errors import DomainError
from supportdesk.domain.events import TEST_EVENT_TYPE
from supportdesk.domain.pagination import PageRequest
from supportdesk.domain.submissions import claim_submission, new_submission_token
from supportdesk.domain.webhooks import deliveries, endpoints
from supportdesk.domain.webhooks.models import WebhookEndpoint
from supportdesk.web.endpoint import Page, redirect
from supportdesk.web.pages.webhooks import (
    DISABLED_REASONS,
    no_such_endpoint,
    of_endpoint,
    webhook_setup,
)
from supportdesk.web.webhook_form import (
    DEFAULT_KEEP_PREVIOUS,
    KEEP_PREVIOUS_CHOICES,
    status_of,
)

RECENT_DELIVERIES = 20


def _path(endpoint_id: str) -> str:
    return f"/settings/webhooks/{endpoint_id}"


async def _detail(
    page: Page, endpoint: WebhookEndpoint, error: str = "", status: int = 200
) -> Response:
    recent = await deliveries.delivery_pages_of_endpoints(
        page.db, page.workspace_id, [endpoint.id], PageRequest(RECENT_DELIVERIES, None)
    )
    return page.render(
        "webhook.html",
        status,
        section="webhooks",
        endpoint=endpoint,
        deliveries=recent[endpoint.id].items,
        reasons=DISABLED_REASONS,
        test_type=TEST_EVENT_TYPE,
        keep_choices=KEEP_PREVIOUS_CHOICES,
        keep_default=DEFAULT_KEEP_PREVIOUS,
        submission_token=new_submission_token(),
        error=error,
        replay=(page.field("from_sequence"), page.field("to_sequence")),
    )


@of_endpoint
async def endpoint_detail(page: Page, endpoint: WebhookEndpoint) -> Response:
    return await _detail(page, endpoint)


@of_endpoint
async def set_enabled(page: Page, endpoint: WebhookEndpoint) -> Response:
    enabled = page.field("enabled") == "true"
    try:
        await endpoints.update_endpoint(
            page.db,
            page.actor,
            page.workspace_id,
            endpoint.id,
            webhook_setup(page).policy,
            enabled=enabled,
        )
    except DomainError as error:
        return await _detail(page, endpoint, error.message, status_of(error))
    page.session.tell(
        "The endpoint is enabled: new events are sent to it."
        if enabled
        else "The endpoint is disabled: no events are sent to it until you enable it."
    )
    return redirect(_path(endpoint.id))


@of_endpoint
async def send_test(page: Page, endpoint: WebhookEndpoint) -> Response:
    try:
        await deliveries.send_test(page.db, page.actor, page.workspace_id, endpoint.id)
    except DomainError as error:
        return await _detail(page, endpoint, error.message, status_of(error))
    page.session.tell("A test event is on its way: see it under Recent deliveries.")
    return redirect(_path(endpoint.id))


@of_endpoint
async def redeliver(page: Page, endpoint: WebhookEndpoint) -> Response:
    event_id = page.field("event_id")
    try:
        await deliveries.redeliver(page.db, page.workspace_id, endpoint.id, event_id)
    except DomainError:
        message = "That event is no longer in the log (events are kept 30 days)."
        return await _detail(page, endpoint, message, 404)
    page.session.tell(f"Event {event_id} is on its way again, with the same event id.")
    return redirect(_path(endpoint.id))


def _sequence(text: str) -> int | None:
    digits = text.strip()
    return int(digits) if digits.isascii() and digits.isdigit() and len(digits) < 19 else None


@of_endpoint
async def replay(page: Page, endpoint: WebhookEndpoint) -> Response:
    first, last = _sequence(page.field("from_sequence")), _sequence(page.field("to_sequence"))
    if first is None or last is None:
        message = "Give the first and the last sequence number of the events to send again."
        return await _detail(page, endpoint, message, 400)
    try:
        count = await deliveries.replay(page.db, page.workspace_id, endpoint.id, first, last)
    except DomainError as error:
        return await _detail(page, endpoint, error.message, status_of(error))
    page.session.tell(
        f"{count} event{'' if count == 1 else 's'} of sequences {first} to {last}"
        " that this endpoint subscribes to are on their way again."
    )
    return redirect(_path(endpoint.id))


@of_endpoint
async def rotate_secret(page: Page, endpoint: WebhookEndpoint) -> Response:
    keep = page.field("keep_previous")
    if keep not in KEEP_PREVIOUS_CHOICES:
        message = "Choose how long the previous secret stays valid."
        return await _detail(page, endpoint, message, 400)
    if not await claim_submission(page.db, page.workspace_id, page.field("submission_token")):
        return page.render("webhook_resubmitted.html", 409, section="webhooks", rotated=True)
    try:
        rotated = await endpoints.rotate_secret(
            page.db,
            page.actor,
            page.workspace_id,
            endpoint.id,
            await webhook_setup(page).box(),
            int(keep),
        )
    except DomainError as error:
        return await _detail(page, endpoint, error.message, status_of(error))
    # The new secret exists only in this response: not in a URL, the session or a log.
    return page.render(
        "webhook_secret.html",
        section="webhooks",
        endpoint=rotated.endpoint,
        secret=rotated.secret,
        rotated=True,
        reasons=DISABLED_REASONS,
        kept_for=KEEP_PREVIOUS_CHOICES[keep] if keep != "0" else "",
    )


@of_endpoint
async def delete_form(page: Page, endpoint: WebhookEndpoint) -> Response:
    return page.render("webhook_delete.html", section="webhooks", endpoint=endpoint)


async def delete(page: Page) -> Response:
    endpoint_id = str(page.request.path_params["endpoint_id"])
    try:
        deleted = await endpoints.delete_endpoint(
            page.db, page.actor, page.workspace_id, endpoint_id
        )
    except DomainError:
        return no_such_endpoint(page)
    # The host only: a URL may carry a token, and the notice travels in the session cookie.
    host = urlsplit(deleted.url).hostname or "endpoint"
    page.session.tell(f"The endpoint at {host} is deleted. No more events are sent to it.")
    return redirect("/settings/webhooks")
