"""Settings → API: the workspace's keys; creating one (its secret shown once); revoking."""

from __future__ import annotations

from starlette.responses import Response

from supportdesk.auth.scopes import PRESETS, SCOPES
from supportdesk.domain import api_keys, machine_users
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode, InvalidArgument
from supportdesk.domain.pagination import PageRequest
from supportdesk.domain.submissions import claim_submission, new_submission_token
from supportdesk.web.endpoint import Page, redirect
from supportdesk.web.forms import ACCESS_CHOICES, EXPIRY_CHOICES, KeyForm

PAGE_SIZE = 50


async def all_machine_users(page: Page) -> list[machine_users.MachineUser]:
    return await page.every(machine_users.list_machine_users)


async def key_list(page: Page) -> Response:
    after = page.request.query_params.get("after") or None
    cursors = await page.cursors()
    try:
        request = PageRequest.of(PAGE_SIZE, after, cursors, "ApiKey")
    except InvalidArgument:
        return redirect("/settings/api")
    listed = await api_keys.list_api_keys(page.db, page.workspace_id, request)
    owners = await machine_users.get_machine_users(
        page.db, page.workspace_id, sorted({key.machine_user_id for key in listed.items})
    )
    return page.render(
        "api_keys.html",
        section="api",
        keys=listed.items,
        owners=owners,
        now=now(),
        next_after=cursors.encode(listed.items[-1].id) if listed.has_next else None,
    )


async def owner_of(page: Page, key: api_keys.ApiKey) -> machine_users.MachineUser | None:
    found = await machine_users.get_machine_users(page.db, page.workspace_id, [key.machine_user_id])
    return found.get(key.machine_user_id)


async def _key_form_page(page: Page, form: KeyForm, status: int = 200) -> Response:
    owners = await all_machine_users(page)
    if not form.machine_user_id:
        managed = next((owner for owner in owners if owner.managed), None)
        form.machine_user_id = managed.id if managed else ""
    return page.render(
        "key_new.html",
        status,
        section="api",
        form=form,
        owners=owners,
        scopes=SCOPES,
        presets=PRESETS,
        access_choices=ACCESS_CHOICES,
        expiry_choices=EXPIRY_CHOICES,
        submission_token=new_submission_token(),
    )


async def new_key_form(page: Page) -> Response:
    wanted_owner = page.request.query_params.get("machine_user", "")
    return await _key_form_page(page, KeyForm(machine_user_id=wanted_owner))


def _read_key_form(page: Page) -> KeyForm:
    return KeyForm(
        name=page.field("name"),
        access=page.field("access"),
        scopes=[s for s in page.form.getlist("scopes") if isinstance(s, str)],
        machine_user_id=page.field("machine_user_id"),
        expires=page.field("expires") or "never",
        expires_on=page.field("expires_on"),
    )


async def _managed_user_id(page: Page) -> str:
    """The machine user the service manages for the workspace: keys made without choosing
    one belong to it."""
    return (await machine_users.managed_machine_user(page.db, page.workspace_id)).id


async def create_key(page: Page) -> Response:
    form = _read_key_form(page)
    moment = now()
    form.check(moment)
    if form.errors:
        return await _key_form_page(page, form, 400)
    if not await claim_submission(page.db, page.workspace_id, page.field("submission_token")):
        return page.render("key_resubmitted.html", 409, section="api")
    try:
        created = await api_keys.create_api_key(
            page.db,
            page.actor,
            page.workspace_id,
            machine_user_id=form.machine_user_id or await _managed_user_id(page),
            name=form.name,
            scopes=form.granted_scopes(),
            expires_at=form.expires_at(moment),
        )
    except DomainError as error:
        form.explain(error)
        status = 404 if error.code == ErrorCode.NOT_FOUND else 400
        return await _key_form_page(page, form, status)
    owner = await owner_of(page, created.api_key)
    # The secret exists only in this response: not in a URL, the session or a log.
    return page.render(
        "key_created.html", section="api", key=created.api_key, secret=created.secret, owner=owner
    )


async def _key(page: Page) -> api_keys.ApiKey | None:
    key_id = str(page.request.path_params["key_id"])
    return (await api_keys.get_api_keys(page.db, page.workspace_id, [key_id])).get(key_id)


def _no_such_key(page: Page) -> Response:
    return page.problem(404, "Key not found", "There is no such API key in this workspace.")


async def revoke_form(page: Page) -> Response:
    key = await _key(page)
    if key is None:
        return _no_such_key(page)
    return page.render(
        "key_revoke.html",
        section="api",
        key=key,
        owner=await owner_of(page, key),
        key_status=key.status(now()),
    )


async def revoke(page: Page) -> Response:
    key_id = str(page.request.path_params["key_id"])
    try:
        key = await api_keys.revoke_api_key(page.db, page.actor, page.workspace_id, key_id)
    except DomainError:
        return _no_such_key(page)
    page.session.tell(
        f"Key “{key.name}” ({key.key_prefix}…) is revoked. Requests with it now fail."
    )
    return redirect("/settings/api")
