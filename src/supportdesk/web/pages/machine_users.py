"""Machine users: the API principals keys belong to; listing, creating, and their keys."""

from __future__ import annotations

from starlette.responses import Response

from supportdesk.domain import api_keys, machine_users
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode
from supportdesk.web.endpoint import Page, redirect
from supportdesk.web.pages.api_keys import all_machine_users

_MESSAGES = {
    ("name", "REQUIRED"): "Give the machine user a name, e.g. the system it stands for.",
    ("name", "TOO_LONG"): "Keep the name to 100 characters or fewer.",
    ("description", "TOO_LONG"): "Keep the description to 500 characters or fewer.",
}


async def user_list(page: Page) -> Response:
    users = await all_machine_users(page)
    keys = await api_keys.keys_of_machine_users(
        page.db, page.workspace_id, [user.id for user in users]
    )
    moment = now()
    active = {
        user.id: sum(key.status(moment) == "active" for key in keys.get(user.id, []))
        for user in users
    }
    return page.render("machine_users.html", section="machine_users", users=users, active=active)


def _form_page(
    page: Page, values: dict[str, str], errors: dict[str, str], status: int = 200
) -> Response:
    return page.render(
        "machine_user_new.html", status, section="machine_users", values=values, errors=errors
    )


async def new_user_form(page: Page) -> Response:
    return _form_page(page, {"name": "", "description": ""}, {})


async def create_user(page: Page) -> Response:
    values = {"name": page.field("name"), "description": page.field("description")}
    try:
        user = await machine_users.create_machine_user(
            page.db, page.actor, page.workspace_id, values["name"], values["description"]
        )
    except DomainError as error:
        errors = {f.field: _MESSAGES.get((f.field, f.code), error.message) for f in error.fields}
        if error.code == ErrorCode.ALREADY_EXISTS:
            errors["name"] = error.message
        return _form_page(page, values, errors or {"form": error.message}, 400)
    page.session.tell(f"Machine user “{user.name}” created. Now give it a key.")
    return redirect(f"/settings/machine-users/{user.id}")


async def user_detail(page: Page) -> Response:
    user_id = str(page.request.path_params["user_id"])
    users = await machine_users.get_machine_users(page.db, page.workspace_id, [user_id])
    user = users.get(user_id)
    keys = await api_keys.keys_of_machine_users(page.db, page.workspace_id, [user_id])
    if user is None:
        return page.problem(404, "Machine user not found", "There is no such machine user here.")
    return page.render(
        "machine_user.html",
        section="machine_users",
        user=user,
        keys=keys.get(user_id, []),
        now=now(),
    )
