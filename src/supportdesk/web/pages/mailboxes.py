"""Settings → Email: the workspace's mailboxes, what came in through each door, and what an
org admin does to one (create it, its inbound token shown once; edit it; rotate the token,
shown once; delete it after confirming). Each action is the domain's own, as GraphQL's
mailbox mutations are, and records the same audit entry and `mailbox.*` event."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.responses import Response

from supportdesk.auth.secret_box import SecretBox
from supportdesk.dispatch.smtp_url import SmtpUrlError, smtp_server
from supportdesk.domain import mailboxes
from supportdesk.domain.changes import Keep
from supportdesk.domain.email.parked import LISTED, parked_mail, parked_raw
from supportdesk.domain.errors import DomainError
from supportdesk.domain.mailboxes.activity import mailbox_activity
from supportdesk.domain.submissions import claim_submission, new_submission_token
from supportdesk.rest.attachments import SAFE_DOWNLOAD_HEADERS, content_disposition
from supportdesk.web.endpoint import Handler, Page, redirect
from supportdesk.web.mailbox_form import MailboxForm
from supportdesk.web.render import SECURITY_HEADERS
from supportdesk.web.webhook_form import status_of

MailboxHandler = Callable[[Page, mailboxes.Mailbox], Awaitable[Response]]
SECTION = "email"


def _path(mailbox_id: str) -> str:
    return f"/settings/email/{mailbox_id}"


def no_such_mailbox(page: Page) -> Response:
    return page.problem(404, "Mailbox not found", "There is no such mailbox in this workspace.")


def of_mailbox(handler: MailboxHandler) -> Handler:
    """A page of the workspace's mailbox named in the path; 404 when there is none such."""

    async def handle(page: Page) -> Response:
        mailbox_id = str(page.request.path_params["mailbox_id"])
        found = await mailboxes.get_mailboxes(page.db, page.workspace_id, [mailbox_id])
        if mailbox_id not in found:
            return no_such_mailbox(page)
        return await handler(page, found[mailbox_id])

    return handle


def _doors(page: Page) -> dict[str, str | None]:
    """Where this deployment takes mail besides a mailbox's own IMAP URL, and where replies
    leave (the SMTP URL without its password, or why it cannot be used)."""
    doors: dict[str, str | None] = {"smtp": page.web.settings.smtp_listen, "sending": None}
    url = page.web.settings.smtp_url
    if url:
        try:
            doors["sending"] = str(smtp_server(url))
        except SmtpUrlError as unusable:
            doors["sending_problem"] = str(unusable)
    return doors


async def mailbox_list(page: Page) -> Response:
    listed = await page.every(mailboxes.list_mailboxes)
    activity = await mailbox_activity(page.db, page.workspace_id, [m.id for m in listed])
    return page.render(
        "mailboxes.html",
        section=SECTION,
        mailboxes=listed,
        activity=activity,
        doors=_doors(page),
    )


def _form_page(
    page: Page, form: MailboxForm, status: int = 200, mailbox: mailboxes.Mailbox | None = None
) -> Response:
    return page.render(
        "mailbox_form.html",
        status,
        section=SECTION,
        form=form,
        mailbox=mailbox,
        submission_token=new_submission_token(),
    )


async def new_mailbox_form(page: Page) -> Response:
    return _form_page(page, MailboxForm())


async def _box_for(page: Page, imap_url: str | Keep) -> SecretBox | None:
    """What seals a new IMAP URL (as GraphQL's mutations pass it: only when there is one
    to seal, so a deployment without a server key manages mailboxes without IMAP)."""
    if isinstance(imap_url, Keep) or not imap_url:
        return None
    return await page.web.server_key.secret_box()


def _token_page(page: Page, made: mailboxes.MailboxWithToken, rotated: bool) -> Response:
    # The token exists only in this response: not in a URL, the session or a log.
    return page.render(
        "mailbox_token.html",
        section=SECTION,
        mailbox=made.mailbox,
        token=made.inbound_token,
        rotated=rotated,
    )


def _resubmitted(page: Page, rotated: bool) -> Response:
    return page.render("mailbox_resubmitted.html", 409, section=SECTION, rotated=rotated)


async def create_mailbox(page: Page) -> Response:
    form = MailboxForm.read(page.form)
    form.check()
    if form.errors:
        return _form_page(page, form, 400)
    if not await claim_submission(page.db, page.workspace_id, page.field("submission_token")):
        return _resubmitted(page, rotated=False)
    imap_url = form.imap_change()
    try:
        made = await mailboxes.create_mailbox(
            page.db,
            page.actor,
            page.workspace_id,
            await _box_for(page, imap_url),
            address=form.address,
            name=form.name,
            acknowledge=form.acknowledge,
            imap_url=imap_url if isinstance(imap_url, str) and imap_url else None,
        )
    except DomainError as error:
        form.explain(error)
        return _form_page(page, form, status_of(error))
    return _token_page(page, made, rotated=False)


@of_mailbox
async def mailbox_detail(page: Page, mailbox: mailboxes.Mailbox) -> Response:
    activity = await mailbox_activity(page.db, page.workspace_id, [mailbox.id])
    parked, more_parked = await parked_mail(page.db, page.workspace_id, mailbox.id)
    return page.render(
        "mailbox.html",
        section=SECTION,
        mailbox=mailbox,
        activity=activity.get(mailbox.id),
        parked=parked,
        more_parked=more_parked,
        listed=LISTED,
        doors=_doors(page),
        submission_token=new_submission_token(),
    )


@of_mailbox
async def parked_message(page: Page, mailbox: mailboxes.Mailbox) -> Response:
    """A parked message as it came (`.eml`), to open in a mail program: never inline."""
    parked_id = str(page.request.path_params["parked_id"])
    raw = await parked_raw(page.db, page.workspace_id, mailbox.id, parked_id)
    if raw is None:
        return page.problem(404, "Message not found", "This mailbox parked no such message.")
    headers = {
        **SECURITY_HEADERS,
        **SAFE_DOWNLOAD_HEADERS,
        "Content-Disposition": content_disposition(f"{parked_id}.eml"),
    }
    return Response(raw, headers=headers, media_type="message/rfc822")


@of_mailbox
async def edit_mailbox_form(page: Page, mailbox: mailboxes.Mailbox) -> Response:
    return _form_page(page, MailboxForm.of(mailbox), mailbox=mailbox)


@of_mailbox
async def update_mailbox(page: Page, mailbox: mailboxes.Mailbox) -> Response:
    form = MailboxForm.read(page.form)
    form.check(mailbox)
    if form.errors:
        return _form_page(page, form, 400, mailbox)
    imap_url = form.imap_change(mailbox)
    try:
        await mailboxes.update_mailbox(
            page.db,
            page.actor,
            page.workspace_id,
            mailbox.id,
            await _box_for(page, imap_url),
            address=form.address,
            name=form.name,
            acknowledge=form.acknowledge,
            imap_url=imap_url,
        )
    except DomainError as error:
        form.explain(error)
        return _form_page(page, form, status_of(error), mailbox)
    page.session.tell("The mailbox is saved.")
    return redirect(_path(mailbox.id))


@of_mailbox
async def rotate_token(page: Page, mailbox: mailboxes.Mailbox) -> Response:
    if not await claim_submission(page.db, page.workspace_id, page.field("submission_token")):
        return _resubmitted(page, rotated=True)
    try:
        rotated = await mailboxes.rotate_mailbox_token(
            page.db, page.actor, page.workspace_id, mailbox.id
        )
    except DomainError:
        return no_such_mailbox(page)
    return _token_page(page, rotated, rotated=True)


@of_mailbox
async def delete_form(page: Page, mailbox: mailboxes.Mailbox) -> Response:
    activity = await mailbox_activity(page.db, page.workspace_id, [mailbox.id])
    return page.render(
        "mailbox_delete.html", section=SECTION, mailbox=mailbox, activity=activity.get(mailbox.id)
    )


async def delete(page: Page) -> Response:
    mailbox_id = str(page.request.path_params["mailbox_id"])
    try:
        gone = await mailboxes.delete_mailbox(page.db, page.actor, page.workspace_id, mailbox_id)
    except DomainError:
        return no_such_mailbox(page)
    page.session.tell(f"The mailbox {gone.address} is deleted. Mail to it is no longer taken.")
    return redirect("/settings/email")
