"""Settings → Members: the workspace's people. Admins add them with a role (and a password,
or an invitation link shown once), make a new link to reset a password, change roles and
remove them; the last admin stays (docs/working-issues.md, docs/settings-page.md)."""

from __future__ import annotations

from starlette.responses import Response

from supportdesk.domain import members
from supportdesk.domain.errors import DomainError, ErrorCode
from supportdesk.web.endpoint import Page, redirect

_MESSAGES = {
    ("email", "REQUIRED"): "Enter the person's e-mail address.",
    ("email", "INVALID"): "Enter an e-mail address like name@example.com.",
    ("email", "TOO_LONG"): "Keep the e-mail address to 254 characters or fewer.",
    ("name", "TOO_LONG"): "Keep the name to 200 characters or fewer.",
    ("role", "REQUIRED"): "Choose a role.",
    ("role", "INVALID"): "Choose Admin or Agent.",
    ("password", "INVALID"): "Use at least 8 characters.",
    ("password", "TOO_LONG"): "Keep the password to 1,024 characters or fewer.",
}
_LAST_ADMIN = "The workspace keeps at least one admin: make someone else an admin first."


async def member_list(page: Page) -> Response:
    everyone = await page.every(members.list_members)
    admins = sum(member.role == members.ADMIN for member in everyone)
    return page.render(
        "members.html", section="members", members=everyone, admins=admins, me=page.me
    )


def _form_page(
    page: Page, values: dict[str, str], errors: dict[str, str], status: int = 200
) -> Response:
    return page.render("member_new.html", status, section="members", values=values, errors=errors)


async def new_member_form(page: Page) -> Response:
    return _form_page(page, {"email": "", "name": "", "role": members.AGENT}, {})


async def create_member(page: Page) -> Response:
    values = {name: page.field(name) for name in ("email", "name", "role")}
    password = page.field("password")
    errors: dict[str, str] = {}
    try:
        added = await members.add_member(
            page.db,
            page.actor,
            page.workspace_id,
            email=values["email"],
            name=values["name"] or None,
            role=values["role"] or None,
            password=password or None,
        )
    except DomainError as error:
        errors |= {f.field: _MESSAGES.get((f.field, f.code), error.message) for f in error.fields}
        if error.code == ErrorCode.ALREADY_EXISTS:
            errors["email"] = error.message
        return _form_page(page, values, errors or {"form": error.message}, 400)
    member = added.member
    if added.invitation is not None:
        return _invitation_page(page, added, added=True)
    page.session.tell(f"{member.name} is now a member ({member.role}).")
    return redirect("/settings/members")


def _invitation_page(page: Page, made: members.AddedMember, *, added: bool) -> Response:
    """The link, once: in the answer to the POST itself, never in a redirect or a log."""
    return page.render(
        "member_invited.html",
        section="members",
        member=made.member,
        invitation=made.invitation,
        added=added,
    )


async def invite(page: Page) -> Response:
    """A new invitation link for a member: how an admin resets a password."""
    member_id = str(page.request.path_params["member_id"])
    try:
        made = await members.invite_member(page.db, page.actor, page.workspace_id, member_id)
    except DomainError as error:
        if error.code == ErrorCode.NOT_FOUND:
            return page.problem(404, "Member not found", "There is no such member here.")
        raise
    return _invitation_page(page, made, added=False)


async def change_role(page: Page) -> Response:
    member_id = str(page.request.path_params["member_id"])
    try:
        member = await members.update_member(
            page.db, page.actor, page.workspace_id, member_id, role=page.field("role")
        )
    except DomainError as error:
        if error.code == ErrorCode.NOT_FOUND:
            return page.problem(404, "Member not found", "There is no such member here.")
        page.session.tell(_LAST_ADMIN if error.fields else error.message)
        return redirect("/settings/members")
    page.session.tell(f"{member.name} is now an {member.role}.")
    return redirect("/settings/members")


async def _member(page: Page) -> members.Member | None:
    member_id = str(page.request.path_params["member_id"])
    return (await members.get_members(page.db, page.workspace_id, [member_id])).get(member_id)


async def remove_form(page: Page) -> Response:
    member = await _member(page)
    if member is None:
        return page.problem(404, "Member not found", "There is no such member here.")
    return page.render(
        "member_remove.html",
        section="members",
        member=member,
        yourself=member.id == page.me.admin.id,
    )


async def remove(page: Page) -> Response:
    member_id = str(page.request.path_params["member_id"])
    try:
        member = await members.remove_member(page.db, page.actor, page.workspace_id, member_id)
    except DomainError as error:
        if error.code == ErrorCode.NOT_FOUND:
            return page.problem(404, "Member not found", "There is no such member here.")
        page.session.tell(_LAST_ADMIN)
        return redirect("/settings/members")
    if member.id == page.me.admin.id:
        return redirect("/login")  # their own session went with them
    page.session.tell(f"{member.name} was removed; their issues are unassigned.")
    return redirect("/settings/members")
