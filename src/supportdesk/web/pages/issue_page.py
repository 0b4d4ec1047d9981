"""The issue page of the inbox, /inbox/issues/<ticketNumber> (docs/inbox.md):
the thread, the composer (a reply or a note, with a status change and files, held when
the thread moved on since the page was shown) and the controls beside it. Every change
calls the domain action the API calls, with the member as actor and author.

Every form works as a plain POST that answers with a redirect back (or the page again,
with what went wrong); a request from htmx (`HX-Request`) gets the piece it replaces."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import JSONResponse, Response

from supportdesk.domain import attachments, issues, labels, members
from supportdesk.domain.audit import Actor
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode
from supportdesk.domain.issues.actions import MAX_BODY
from supportdesk.domain.issues.workflow import PRIORITIES, STATUSES, TRANSITIONS
from supportdesk.web.endpoint import BodyLimits, Page, redirect, takes_body
from supportdesk.web.pages import issue_files
from supportdesk.web.pages.issue_view import IssueView, issue_view
from supportdesk.web.pages.live import live_url

# A message of MAX_BODY characters, each up to 4 bytes of UTF-8, percent-encoded (x3).
COMPOSER_LIMITS = BodyLimits(total=12 * MAX_BODY + 64 * 1024, part=12 * MAX_BODY)
STATUS_NAMES = {
    "new": "New",
    "open": "Open",
    "pending": "Pending",
    "on_hold": "On hold",
    "solved": "Solved",
    "closed": "Closed",
}
PRIORITY_NAMES = {"low": "Low", "normal": "Normal", "high": "High", "urgent": "Urgent"}
_FIELD_MESSAGES = {
    ("body", "REQUIRED"): "Write a message first: it is empty.",
    ("body", "TOO_LONG"): f"A message holds at most {MAX_BODY:,} characters: shorten it.",
    ("body", "INVALID"): "The message holds a character that cannot be stored (NUL).",
    ("status", "INVALID"): "Choose a status from the list.",
    ("priority", "INVALID"): "Choose a priority from the list.",
    ("assigneeId", "UNKNOWN"): "That person is not a member of this workspace.",
    ("labelIds", "UNKNOWN"): "That label is not one of this workspace's.",
    ("addLabelIds", "UNKNOWN"): "That label is not one of this workspace's.",
    ("removeLabelIds", "UNKNOWN"): "That label is not one of this workspace's.",
    ("attachmentIds", "UNKNOWN"): "A file is not one of this workspace's uploads.",
    ("attachmentIds", "ALREADY_ATTACHED"): "A file belongs to another message already.",
    ("attachmentIds", "NOT_UPLOADED"): "A file's upload did not finish: upload it again.",
    ("attachmentIds", "TOO_MANY"): "A message takes at most 25 files.",
}


def _ticket_number(page: Page) -> int:
    return int(page.request.path_params["ticket_number"])


def _is_htmx(page: Page) -> bool:
    return page.request.headers.get("hx-request") == "true"


def _wants_json(page: Page) -> bool:
    return "application/json" in page.request.headers.get("accept", "")


def _not_found(page: Page) -> Response:
    return page.problem(404, "Issue not found", "There is no issue with that number here.")


def refusal_status(error: DomainError) -> int:
    """404 when the form named something the workspace does not have (another workspace's
    label, member or file), 400 for any other refusal."""
    unknown = any(problem.code == FieldCode.UNKNOWN for problem in error.fields)
    return 404 if unknown else 400


def explained(error: DomainError) -> str:
    """What a refusal of the domain says to the person on the page."""
    for problem in error.fields:
        message = _FIELD_MESSAGES.get((problem.field, str(problem.code)))
        if message:
            return message
    return error.message


async def member_actor(page: Page) -> Actor:
    """The member on the page, as the author and actor of what they do (events show
    `actor.type: "member"`, messages resolve to the Member)."""
    seat = page.me.admin
    found = (await members.get_members(page.db, page.workspace_id, [seat.id])).get(seat.id)
    name = found.name if found is not None and found.name else seat.email
    return Actor("member", seat.id, name, page.client_address, name)


def _next_statuses(current: str) -> list[str]:
    return [status for status in STATUSES if status == current or status in TRANSITIONS[current]]


def _values(page: Page, view: IssueView, **extra: Any) -> dict[str, Any]:
    current = view.issue.status
    return {
        "section": "inbox",
        "view": view,
        "issue": view.issue,
        "me_id": page.me.admin.id,
        "status_names": STATUS_NAMES,
        "priority_names": PRIORITY_NAMES,
        "priorities": PRIORITIES,
        "next_statuses": _next_statuses(current),
        # What a reply or note may move the issue to besides leaving it.
        "then_statuses": [s for s in _next_statuses(current) if s not in (current, "new")],
        "composer": Composer(),
        "control_error": None,
        **extra,
    }


def page_values(page: Page, view: IssueView, **extra: Any) -> dict[str, Any]:
    """The page's values, for the pieces that render alone (its live refresh)."""
    return _values(page, view, **extra)


def _render(page: Page, view: IssueView, status: int = 200, **extra: Any) -> Response:
    return page.render("inbox/issue.html", status, **_values(page, view, **extra))


async def issue_page(page: Page) -> Response:
    view = await issue_view(page.db, page.workspace_id, _ticket_number(page))
    if view is None:
        return _not_found(page)
    return _render(page, view, live_url=await live_url(page))


def _back(number: int, anchor: str = "") -> Response:
    return redirect(f"/inbox/issues/{number}{anchor}")


# --- The composer ----------------------------------------------------------------


@dataclass(slots=True)
class Composer:
    """What the composer holds when the page is shown again: the member's text, status and
    files, and why it came back (an error, or `held` with the `kind` of message held)."""

    body: str = ""
    status: str = ""
    uploads: list[attachments.Attachment] = field(default_factory=list)
    error: str | None = None
    held: bool = False
    kind: str = ""


def _attachment_ids(page: Page) -> list[str]:
    return [str(attachment_id) for attachment_id in page.form.getlist("attachment_ids")]


async def _composer_as_sent(page: Page, **changes: Any) -> Composer:
    uploads = await issue_files.pending_uploads(page, _attachment_ids(page))
    return Composer(page.field("body"), page.field("status"), uploads, **changes)


@takes_body(lambda _: COMPOSER_LIMITS)
async def send_message(page: Page) -> Response:
    """A reply ("Send reply") or an internal note ("Add note"), with the status chosen and
    the files uploaded, held when the page had not shown the thread's newest message."""
    number = _ticket_number(page)
    issue = await issues.fetch_issue_by_number(page.db, page.workspace_id, number)
    if issue is None:
        return _not_found(page)
    kind = page.field("send")
    if kind not in ("reply", "note"):
        return page.problem(400, "Form not readable", "Choose Send reply or Add note.")
    if page.field("file"):
        error = "Press Upload to attach the file you chose, or clear the choice, then send."
        return await _composer_again(page, number, 400, error=error)
    write = issues.reply_to_issue if kind == "reply" else issues.add_note
    try:
        _, message = await write(
            page.db,
            await member_actor(page),
            page.workspace_id,
            issue.id,
            page.field("body"),
            attachment_ids=_attachment_ids(page),
            status=page.field("status") or None,
            seen_up_to=page.field("seen_up_to"),
        )
    except issues.ThreadMoved as moved:
        return await _composer_again(page, number, 409, moved.newer_ids, held=True, kind=kind)
    except DomainError as error:
        status = refusal_status(error)
        return await _composer_again(page, number, status, error=explained(error))
    page.session.tell("Reply sent." if kind == "reply" else "Note added.")
    return _back(number, f"#{message.id}")


async def _composer_again(
    page: Page, number: int, status: int, newer_ids: Sequence[str] = (), **state: Any
) -> Response:
    """The page once more, as the thread is now (`newer_ids` marked new), the composer
    holding what the member wrote."""
    view = await issue_view(page.db, page.workspace_id, number, newer_ids)
    if view is None:
        return _not_found(page)
    return _render(page, view, status, composer=await _composer_as_sent(page, **state))


@takes_body(issue_files.upload_limits)
async def upload_file(page: Page) -> Response:
    """A file from the composer: stored, then listed in the composer until a send takes
    it. A script gets JSON; a plain form gets the page again with its text kept."""
    try:
        return await _upload(page)
    finally:
        await page.form.close()


async def _upload(page: Page) -> Response:
    number = _ticket_number(page)
    if await issues.fetch_issue_by_number(page.db, page.workspace_id, number) is None:
        return _not_found(page)
    chosen = issue_files.chosen_file(page)
    if chosen is None:
        message = "Choose a file to upload first."
        if _wants_json(page):
            return issue_files.json_refusal(message, 400)
        return await _composer_again(page, number, 400, error=message)
    try:
        stored = await issue_files.store_upload(page, chosen)
    except DomainError as error:
        message = issue_files.upload_refusal(error)
        if _wants_json(page):
            return issue_files.json_refusal(message, 400)
        return await _composer_again(page, number, 400, error=message)
    if _wants_json(page):
        return JSONResponse(issue_files.attachment_json(stored), 201)
    view = await issue_view(page.db, page.workspace_id, number)
    if view is None:
        return _not_found(page)
    composer = await _composer_as_sent(page)
    composer.uploads.append(stored)
    return _render(page, view, composer=composer)


# --- The controls ----------------------------------------------------------------

Change = Callable[[Page, Actor, issues.Issue], Awaitable[object]]


async def _control(
    page: Page, change: Change, done: str, *, moves_status: bool = False
) -> Response:
    """Run one control's change on the issue; a refusal shows on the page (nothing was
    written); htmx gets the controls again, and after a status change the composer's
    "Then mark as" (its choices start from the status; other controls keep what the
    agent chose there)."""
    number = _ticket_number(page)
    issue = await issues.fetch_issue_by_number(page.db, page.workspace_id, number)
    if issue is None:
        return _not_found(page)
    try:
        await change(page, await member_actor(page), issue)
    except DomainError as error:
        if error.code == ErrorCode.NOT_FOUND:
            return page.problem(404, "Not found", "There is no such thing here.")
        view = await issue_view(page.db, page.workspace_id, number)
        assert view is not None
        if _is_htmx(page):
            # htmx swaps no 4xx answer: the refusal is the piece it swaps in.
            values = _values(page, view, control_error=explained(error), oob=True)
            return page.render("inbox/_controls.html", **values)
        return _render(page, view, refusal_status(error), control_error=explained(error))
    if _is_htmx(page):
        view = await issue_view(page.db, page.workspace_id, number)
        assert view is not None
        values = _values(page, view, control_done=done, oob=True, then_oob=moves_status)
        return page.render("inbox/_controls.html", **values)
    page.session.tell(done)
    return _back(number)


async def set_status(page: Page) -> Response:
    async def change(page: Page, actor: Actor, issue: issues.Issue) -> object:
        return await issues.update_issue(
            page.db, actor, page.workspace_id, issue.id, status=page.field("status")
        )

    return await _control(page, change, "Status changed.", moves_status=True)


async def set_priority(page: Page) -> Response:
    async def change(page: Page, actor: Actor, issue: issues.Issue) -> object:
        return await issues.update_issue(
            page.db, actor, page.workspace_id, issue.id, priority=page.field("priority")
        )

    return await _control(page, change, "Priority changed.")


async def set_assignee(page: Page) -> Response:
    async def change(page: Page, actor: Actor, issue: issues.Issue) -> object:
        chosen = page.field("assignee_id")
        if chosen == "me":
            chosen = page.me.admin.id
        return await issues.assign_issue(
            page.db, actor, page.workspace_id, issue.id, chosen or None
        )

    return await _control(page, change, "Assignee changed.")


async def set_labels(page: Page) -> Response:
    """The labels chosen become the issue's: those added and those taken off in one
    transaction (the bulk change of one issue, all or nothing)."""

    async def change(page: Page, actor: Actor, issue: issues.Issue) -> object:
        chosen = list(dict.fromkeys(str(i) for i in page.form.getlist("label_ids")))
        carried = await _carried_ids(page, issue)
        adding = [i for i in chosen if i not in carried]
        removing = [i for i in carried if i not in chosen]
        if not adding and not removing:
            return issue
        bulk = issues.BulkChange([issue.id], add_label_ids=adding, remove_label_ids=removing)
        try:
            return await issues.update_issues(page.db, actor, page.workspace_id, bulk)
        except DomainError as error:
            raise _single(error, issue.id) from None

    return await _control(page, change, "Labels changed.")


async def _carried_ids(page: Page, issue: issues.Issue) -> list[str]:
    carried = await labels.labels_of_issues(page.db, page.workspace_id, [issue.id])
    return [label.id for label in carried[issue.id]]


def _single(error: DomainError, issue_id: str) -> DomainError:
    """A bulk refusal of one issue, as that issue's own refusal."""
    for problem in error.fields:
        if problem.field == issue_id and isinstance(problem.code, ErrorCode):
            if problem.code == ErrorCode.LIMIT_REACHED:
                return DomainError(problem.code, "An issue carries at most 20 labels.")
            if problem.code == ErrorCode.ISSUE_CLOSED:
                return DomainError(problem.code, "The issue is closed; it cannot change any more.")
            if problem.code == ErrorCode.ISSUE_MERGED:
                return DomainError(problem.code, "The issue was merged; change that one instead.")
    return error


async def merge_into(page: Page) -> Response:
    """This issue's thread joins the issue whose ticket number is given (mergeIssue)."""
    number = _ticket_number(page)
    source = await issues.fetch_issue_by_number(page.db, page.workspace_id, number)
    if source is None:
        return _not_found(page)
    given = page.field("target_number").strip().lstrip("#")
    if not (given.isascii() and given.isdigit() and len(given) < 10):
        return await _merge_refused(page, number, 400, "Give the ticket number, e.g. 42.")
    target = await issues.fetch_issue_by_number(page.db, page.workspace_id, int(given))
    if target is None:
        message = "There is no issue with that ticket number here."
        return await _merge_refused(page, number, 404, message)
    if target.id == source.id:
        return await _merge_refused(page, number, 400, "An issue cannot be merged into itself.")
    try:
        await issues.merge_issue(
            page.db, await member_actor(page), page.workspace_id, source.id, target.id
        )
    except DomainError as refused:
        return await _merge_refused(page, number, 400, explained(refused))
    page.session.tell(f"Merged into #{target.ticket_number}.")
    return _back(target.ticket_number)


async def _merge_refused(page: Page, number: int, status: int, message: str) -> Response:
    view = await issue_view(page.db, page.workspace_id, number)
    if view is None:
        return _not_found(page)
    return _render(page, view, status, control_error=message)
