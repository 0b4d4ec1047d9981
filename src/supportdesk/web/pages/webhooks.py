"""Settings → Webhooks: the workspace's endpoints; creating one (its secret shown once) and
editing one. What is done to one endpoint is in `webhook_endpoint`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.responses import Response

from supportdesk.domain.errors import DomainError
from supportdesk.domain.pagination import PageRequest
from supportdesk.domain.submissions import claim_submission, new_submission_token
from supportdesk.domain.webhooks import endpoints, queries
from supportdesk.domain.webhooks.models import MAX_ENDPOINTS, WebhookEndpoint
from supportdesk.domain.webhooks.setup import WebhookSetup
from supportdesk.web.endpoint import Handler, Page, redirect
from supportdesk.web.webhook_form import EndpointForm, event_groups, status_of

EndpointHandler = Callable[[Page, WebhookEndpoint], Awaitable[Response]]

DISABLED_REASONS = {
    "manual": "Disabled by an org admin",
    "gone": "The endpoint answered 410 Gone",
    "failing": "No successful delivery for 5 days",
}


def webhook_setup(page: Page) -> WebhookSetup:
    """The key that seals secrets and the deployment's address policy."""
    settings = page.web.settings
    policy = endpoints.EndpointPolicy(allow_private=settings.webhook_allow_private)
    return WebhookSetup(page.web.server_key, policy)


def no_such_endpoint(page: Page) -> Response:
    return page.problem(
        404, "Webhook endpoint not found", "There is no such webhook endpoint in this workspace."
    )


def of_endpoint(handler: EndpointHandler) -> Handler:
    """A page of the workspace's endpoint named in the path; 404 when there is none such."""

    async def handle(page: Page) -> Response:
        endpoint_id = str(page.request.path_params["endpoint_id"])
        found = await queries.get_endpoints(page.db, page.workspace_id, [endpoint_id])
        if endpoint_id not in found:
            return no_such_endpoint(page)
        return await handler(page, found[endpoint_id])

    return handle


async def endpoint_list(page: Page) -> Response:
    listed = await queries.list_endpoints(
        page.db, page.workspace_id, PageRequest(MAX_ENDPOINTS, None)
    )
    return page.render(
        "webhooks.html",
        section="webhooks",
        endpoints=listed.items,
        reasons=DISABLED_REASONS,
        at_limit=len(listed.items) >= MAX_ENDPOINTS,
        max_endpoints=MAX_ENDPOINTS,
    )


def _form_page(
    page: Page, form: EndpointForm, status: int = 200, endpoint: WebhookEndpoint | None = None
) -> Response:
    return page.render(
        "webhook_form.html",
        status,
        section="webhooks",
        form=form,
        endpoint=endpoint,
        event_groups=event_groups(),
        allow_private=page.web.settings.webhook_allow_private,
        submission_token=new_submission_token(),
    )


async def new_endpoint_form(page: Page) -> Response:
    return _form_page(page, EndpointForm())


async def create_endpoint(page: Page) -> Response:
    form = EndpointForm.read(page.form)
    form.check()
    if form.errors:
        return _form_page(page, form, 400)
    if not await claim_submission(page.db, page.workspace_id, page.field("submission_token")):
        return page.render("webhook_resubmitted.html", 409, section="webhooks", rotated=False)
    setup = webhook_setup(page)
    try:
        created = await endpoints.create_endpoint(
            page.db,
            page.actor,
            page.workspace_id,
            await setup.box(),
            setup.policy,
            url=form.url,
            description=form.description,
            event_types=form.chosen_types(),
            enabled=form.enabled,
        )
    except DomainError as error:
        form.explain(error)
        return _form_page(page, form, status_of(error))
    # The secret exists only in this response: not in a URL, the session or a log.
    return page.render(
        "webhook_secret.html",
        section="webhooks",
        endpoint=created.endpoint,
        secret=created.secret,
        rotated=False,
        reasons=DISABLED_REASONS,
    )


@of_endpoint
async def edit_endpoint_form(page: Page, endpoint: WebhookEndpoint) -> Response:
    form = EndpointForm(
        url=endpoint.url,
        description=endpoint.description,
        events="selected" if endpoint.event_types else "all",
        event_types=list(endpoint.event_types),
        enabled=endpoint.enabled,
    )
    return _form_page(page, form, endpoint=endpoint)


@of_endpoint
async def update_endpoint(page: Page, endpoint: WebhookEndpoint) -> Response:
    form = EndpointForm.read(page.form)
    form.check()
    if form.errors:
        return _form_page(page, form, 400, endpoint)
    try:
        await endpoints.update_endpoint(
            page.db,
            page.actor,
            page.workspace_id,
            endpoint.id,
            webhook_setup(page).policy,
            url=form.url,
            description=form.description,
            event_types=form.chosen_types(),
            enabled=form.enabled,
        )
    except DomainError as error:
        form.explain(error)
        return _form_page(page, form, status_of(error), endpoint)
    page.session.tell("The endpoint is saved.")
    return redirect(f"/settings/webhooks/{endpoint.id}")
