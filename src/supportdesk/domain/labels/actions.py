"""The writers of labels and of the labels an issue carries; each is one transaction.

Adding and removing are idempotent: a label already on the issue (or already off it) is no
change, and a call that changes nothing records nothing. A change moves the issue's
`updatedAt`, so that integrations polling by it see it, and records `issue.labels_changed`
with the issue's labels after it."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.locking import locked_row
from supportdesk.db.tables import issue_labels, issues, labels
from supportdesk.domain.audit import Actor
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, FieldError, not_found
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.issues.actions import issue_snapshot, locked_issue
from supportdesk.domain.issues.models import ISSUE_COLUMNS, Issue, issue_of
from supportdesk.domain.issues.workflow import ensure_open_for_changes
from supportdesk.domain.labels.models import (
    LABEL_COLUMNS,
    MAX_LABELS_PER_ISSUE,
    Label,
    label_of,
)
from supportdesk.domain.labels.queries import known_label_ids, labels_of_issue_in
from supportdesk.domain.rows import updated_row
from supportdesk.domain.validation import Validator

# add_labels and remove_labels: (db, actor, workspace_id, issue_id, label_ids) -> the issue.
IssueLabelsChange = Callable[[Database, Actor, str, str, Sequence[str]], Awaitable[Issue]]

MAX_NAME = 50
MAX_DESCRIPTION = 500
DEFAULT_COLOR = "#6b7280"
_COLOR = re.compile(r"\A#[0-9a-f]{6}\Z")


def _name(check: Validator, value: str | None, *, required: bool) -> str | None:
    return check.text("name", value, MAX_NAME, required=required)


def _color(check: Validator, value: str | None) -> str | None:
    if value is None:
        return None
    cleaned = value.strip().lower()
    if not _COLOR.match(cleaned):
        check.fail("color", FieldCode.INVALID, "color is #rrggbb, e.g. #d97706.")
    return cleaned


def _description(check: Validator, value: str | None) -> str | None:
    if value is None:
        return None
    return check.text("description", value, MAX_DESCRIPTION, required=False) or ""


def _name_taken(name: str) -> DomainError:
    return DomainError(
        ErrorCode.ALREADY_EXISTS, f"The workspace has a label named {name!r} (in any case)."
    )


async def create_label(
    db: Database,
    actor: Actor,
    workspace_id: str,
    name: str | None,
    color: str | None = None,
    description: str | None = None,
) -> Label:
    """A new label; its name is unique in the workspace, ignoring case (ALREADY_EXISTS)."""
    check = Validator()
    clean_name = _name(check, name, required=True)
    clean_color = _color(check, color) or DEFAULT_COLOR
    clean_description = _description(check, description) or ""
    check.check()
    assert clean_name is not None
    moment = now()
    label = Label(
        new_id("Label", moment),
        workspace_id,
        clean_name,
        clean_color,
        clean_description,
        moment,
        moment,
    )
    try:
        async with db.transaction() as connection:
            await connection.execute(
                insert(labels).values(
                    workspace_id=workspace_id,
                    id=label.id,
                    name=label.name,
                    name_normalized=clean_name.casefold(),
                    color=label.color,
                    description=label.description,
                    created_at=moment,
                    updated_at=moment,
                )
            )
            await record_events(
                connection,
                workspace_id,
                actor,
                [("label.created", {"label": snapshots.label(label)})],
            )
    except IntegrityError:
        raise _name_taken(clean_name) from None
    return label


async def _locked_label(connection: Connection, workspace_id: str, label_id: str) -> Label:
    row = None
    if is_id_of(label_id, "Label"):
        row = await locked_row(connection, labels, LABEL_COLUMNS, workspace_id, label_id)
    if row is None:
        raise not_found("Label")
    return label_of(row)


async def update_label(
    db: Database,
    actor: Actor,
    workspace_id: str,
    label_id: str,
    *,
    name: str | None = None,
    color: str | None = None,
    description: str | None = None,
) -> Label:
    """Change what is given; a value equal to the current one is no change."""
    check = Validator()
    clean_name = _name(check, name, required=True) if name is not None else None
    clean_color = _color(check, color)
    clean_description = _description(check, description)
    check.check()
    try:
        async with db.transaction() as connection:
            label = await _locked_label(connection, workspace_id, label_id)
            changes: dict[str, Any] = {
                key: value
                for key, value in (
                    ("name", clean_name),
                    ("color", clean_color),
                    ("description", clean_description),
                )
                if value is not None and getattr(label, key) != value
            }
            if not changes:
                return label
            if "name" in changes:
                changes["name_normalized"] = changes["name"].casefold()
            changes["updated_at"] = now()
            row = await updated_row(
                connection, labels, LABEL_COLUMNS, workspace_id, label.id, **changes
            )
            changed = label_of(row)
            before, after = snapshots.label(label), snapshots.label(changed)
            await record_events(
                connection,
                workspace_id,
                actor,
                [("label.updated", {"label": after, "changes": snapshots.changes(before, after)})],
            )
    except IntegrityError:
        raise _name_taken(clean_name or "") from None
    return changed


async def delete_label(db: Database, actor: Actor, workspace_id: str, label_id: str) -> Label:
    """Delete the label; it comes off every issue that carried it, and those issues'
    `updatedAt` moves (they record no event of their own: `label.deleted` says it for all
    of them). The issues are changed before the label is locked, the order addLabels
    takes them in, so the two never wait for each other in a circle."""
    if not is_id_of(label_id, "Label"):
        raise not_found("Label")
    async with db.transaction() as connection:
        carrying = select(issue_labels.c.issue_id).where(
            issue_labels.c.workspace_id == workspace_id, issue_labels.c.label_id == label_id
        )
        await connection.execute(
            update(issues)
            .where(issues.c.workspace_id == workspace_id, issues.c.id.in_(carrying))
            .values(updated_at=now())
        )
        label = await _locked_label(connection, workspace_id, label_id)
        await connection.execute(
            delete(issue_labels).where(
                issue_labels.c.workspace_id == workspace_id, issue_labels.c.label_id == label.id
            )
        )
        await connection.execute(
            delete(labels).where(labels.c.workspace_id == workspace_id, labels.c.id == label.id)
        )
        await record_events(
            connection, workspace_id, actor, [("label.deleted", {"label": snapshots.label(label)})]
        )
    return label


_INSERT_ISSUE_LABEL = insert(issue_labels)
_TOUCH_ISSUE = (
    update(issues)
    .where(issues.c.workspace_id == bindparam("in_workspace"), issues.c.id == bindparam("the_id"))
    .values(updated_at=bindparam("new_updated_at", type_=issues.c.updated_at.type))
    .returning(*ISSUE_COLUMNS)
)


async def carry_labels(
    connection: Connection,
    workspace_id: str,
    additions: Sequence[tuple[str, str]],
    at: datetime,
) -> None:
    """Put each (issue, label) of `additions` on, in one call."""
    await connection.run_many(
        _INSERT_ISSUE_LABEL,
        [
            {
                "workspace_id": workspace_id,
                "issue_id": issue_id,
                "label_id": label_id,
                "added_at": at,
            }
            for issue_id, label_id in additions
        ],
    )


async def drop_labels(
    connection: Connection, workspace_id: str, issue_ids: Sequence[str], label_ids: Sequence[str]
) -> None:
    """Take each of the labels off each of the issues, in one statement."""
    await connection.execute(
        delete(issue_labels).where(
            issue_labels.c.workspace_id == workspace_id,
            issue_labels.c.issue_id.in_(issue_ids),
            issue_labels.c.label_id.in_(label_ids),
        )
    )


def labels_changed(
    shown: snapshots.Snapshot, carried: list[Label], added: Sequence[str], removed: list[Label]
) -> tuple[str, dict[str, Any]]:
    """The `issue.labels_changed` event of an issue (as events show it) that now carries
    `carried`, after `added` (label ids) went on and `removed` came off."""
    return (
        "issue.labels_changed",
        {
            "issue": shown,
            "labels": [snapshots.label(label) for label in carried],
            "added": [snapshots.label(label) for label in carried if label.id in added],
            "removed": [snapshots.label(label) for label in removed],
        },
    )


def _clean_label_ids(label_ids: Sequence[str]) -> list[str]:
    """The ids given, once each, in their order."""
    return list(dict.fromkeys(str(label_id) for label_id in label_ids))


async def _check_known(connection: Connection, workspace_id: str, label_ids: list[str]) -> None:
    """Every id names a label of the workspace, or VALIDATION_FAILED (`labelIds` UNKNOWN)."""
    known = await known_label_ids(connection, workspace_id, label_ids)
    if len(known) != len(label_ids):
        raise _unknown_label()


def _unknown_label() -> DomainError:
    return DomainError(
        ErrorCode.VALIDATION_FAILED,
        "Unknown label: every id must name a label of the workspace.",
        [FieldError("labelIds", FieldCode.UNKNOWN)],
    )


async def _labels_changed(
    connection: Connection,
    actor: Actor,
    issue: Issue,
    added: list[str],
    removed: list[Label],
    at: datetime,
) -> Issue:
    [row] = await connection.rows(
        _TOUCH_ISSUE, {"in_workspace": issue.workspace_id, "the_id": issue.id, "new_updated_at": at}
    )
    changed = issue_of(row)
    carried = await labels_of_issue_in(connection, issue.workspace_id, issue.id)
    shown = await issue_snapshot(connection, changed)
    event = labels_changed(shown, carried, added, removed)
    await record_events(connection, issue.workspace_id, actor, [event])
    return changed


async def add_labels(
    db: Database, actor: Actor, workspace_id: str, issue_id: str, label_ids: Sequence[str]
) -> Issue:
    """Put the labels on the issue (those it carries already stay as they are). An issue
    carries at most MAX_LABELS_PER_ISSUE (LIMIT_REACHED); a closed one changes no more."""
    wanted = _clean_label_ids(label_ids)
    async with db.transaction() as connection:
        issue = await locked_issue(connection, workspace_id, issue_id)
        ensure_open_for_changes(issue.status, issue.merged_into)
        await _check_known(connection, workspace_id, wanted)
        carried = {
            label.id for label in await labels_of_issue_in(connection, workspace_id, issue.id)
        }
        new = [label_id for label_id in wanted if label_id not in carried]
        if not new:
            return issue
        if len(carried) + len(new) > MAX_LABELS_PER_ISSUE:
            raise DomainError(
                ErrorCode.LIMIT_REACHED,
                f"An issue carries at most {MAX_LABELS_PER_ISSUE} labels.",
            )
        moment = now()
        await carry_labels(
            connection, workspace_id, [(issue.id, label_id) for label_id in new], moment
        )
        return await _labels_changed(connection, actor, issue, new, [], moment)


async def remove_labels(
    db: Database, actor: Actor, workspace_id: str, issue_id: str, label_ids: Sequence[str]
) -> Issue:
    """Take the labels off the issue (those it does not carry are no change)."""
    unwanted = _clean_label_ids(label_ids)
    async with db.transaction() as connection:
        issue = await locked_issue(connection, workspace_id, issue_id)
        ensure_open_for_changes(issue.status, issue.merged_into)
        await _check_known(connection, workspace_id, unwanted)
        carried = await labels_of_issue_in(connection, workspace_id, issue.id)
        removed = [label for label in carried if label.id in unwanted]
        if not removed:
            return issue
        await drop_labels(connection, workspace_id, [issue.id], [label.id for label in removed])
        return await _labels_changed(connection, actor, issue, [], removed, now())
