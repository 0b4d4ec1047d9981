"""updateIssues: one change to up to 100 issues, all of them or none (docs/working-issues.md).

Every issue is read and locked in one statement, in id order (so two bulk changes never wait
for each other in a circle), checked, and only then changed: one UPDATE for the status and
priority of every issue that changes, one batch of label rows in and one statement out, and
one call that records an event per change of each issue. When any issue cannot change, the
error names each such id (`field` = the id) with its code, and nothing is written."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import update

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import issues
from supportdesk.domain.audit import Actor
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, FieldError
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.issues.actions import (
    issue_snapshots,
    locked_issues,
    normalised_priority,
    normalised_status,
)
from supportdesk.domain.issues.assignment import (
    Assignee,
    assigned_event,
    assignee_columns,
    found_assignee,
    is_assigned_to,
)
from supportdesk.domain.issues.models import ISSUE_COLUMNS, Issue, issue_of
from supportdesk.domain.issues.workflow import TRANSITIONS, refusal_of
from supportdesk.domain.labels.actions import carry_labels, drop_labels, labels_changed
from supportdesk.domain.labels.models import MAX_LABELS_PER_ISSUE, Label
from supportdesk.domain.labels.queries import known_label_ids, labels_of_issues_in
from supportdesk.domain.validation import Validator

MAX_IDS = 100


@dataclass(frozen=True, slots=True)
class BulkChange:
    ids: Sequence[str]
    status: str | None = None
    priority: str | None = None
    add_label_ids: Sequence[str] = ()
    remove_label_ids: Sequence[str] = ()
    # Whether the change assigns (`assignee_id` None: to nobody).
    assign: bool = False
    assignee_id: str | None = None


@dataclass(slots=True)
class _Plan:
    """What changes on one issue."""

    issue: Issue
    fields: dict[str, str]
    added: list[str]
    removed: list[Label]
    reassigned: bool


def _checked_input(change: BulkChange) -> tuple[list[str], str | None, str | None]:
    check = Validator()
    ids = list(dict.fromkeys(str(issue_id) for issue_id in change.ids))
    if not ids:
        check.fail("ids", FieldCode.REQUIRED)
    elif len(change.ids) > MAX_IDS:  # as given: repeats do not make room for more
        check.fail("ids", FieldCode.INVALID)
    status = normalised_status(check, change.status)
    priority = normalised_priority(check, change.priority)
    if set(change.add_label_ids) & set(change.remove_label_ids):
        check.fail("removeLabelIds", FieldCode.INVALID)  # on and off at once
    check.check()
    return ids, status, priority


async def update_issues(
    db: Database, actor: Actor, workspace_id: str, change: BulkChange
) -> list[Issue]:
    """Apply `change` to every issue of `change.ids`, or to none; returns the issues in the
    order given (an issue the change leaves as it was comes back unchanged)."""
    ids, status, priority = _checked_input(change)
    adding = list(dict.fromkeys(change.add_label_ids))
    removing = list(dict.fromkeys(change.remove_label_ids))
    async with db.transaction() as connection:
        await _check_labels(connection, workspace_id, adding, removing)
        assignee = None
        if change.assign:
            assignee = await found_assignee(
                connection, workspace_id, change.assignee_id, "assigneeId"
            )
        found = await locked_issues(connection, workspace_id, ids)
        carried = await labels_of_issues_in(connection, workspace_id, list(found))
        failures: list[FieldError] = []
        plans: list[_Plan] = []
        for issue_id in ids:
            issue = found.get(issue_id)
            if issue is None:
                failures.append(FieldError(issue_id, ErrorCode.NOT_FOUND))
                continue
            reassigned = change.assign and not is_assigned_to(issue, assignee)
            plan, failure = _plan(
                issue, status, priority, adding, removing, carried[issue_id], reassigned
            )
            if failure is not None:
                failures.append(FieldError(issue_id, failure))
            elif plan is not None:
                plans.append(plan)
        if failures:
            raise _refused(failures, len(ids))
        changed = await _apply(connection, actor, workspace_id, plans, removing, assignee)
    return [changed.get(issue_id, found[issue_id]) for issue_id in ids]


async def _check_labels(
    connection: Connection, workspace_id: str, adding: list[str], removing: list[str]
) -> None:
    check = Validator()
    known = await known_label_ids(connection, workspace_id, [*adding, *removing])
    if any(label_id not in known for label_id in adding):
        check.fail("addLabelIds", FieldCode.UNKNOWN)
    if any(label_id not in known for label_id in removing):
        check.fail("removeLabelIds", FieldCode.UNKNOWN)
    check.check()


def _plan(
    issue: Issue,
    status: str | None,
    priority: str | None,
    adding: list[str],
    removing: list[str],
    carried: list[Label],
    reassigned: bool,
) -> tuple[_Plan | None, ErrorCode | None]:
    """What the change does to this issue, or the code of why it cannot."""
    refusal = refusal_of(issue.status, issue.merged_into)
    if refusal is not None:
        return None, refusal
    if status is not None and status != issue.status and status not in TRANSITIONS[issue.status]:
        return None, ErrorCode.INVALID_STATUS_TRANSITION
    fields = {
        key: value
        for key, value in (("status", status), ("priority", priority))
        if value is not None and getattr(issue, key) != value
    }
    on = {label.id for label in carried}
    added = [label_id for label_id in adding if label_id not in on]
    removed = [label for label in carried if label.id in removing]
    if len(on) + len(added) - len(removed) > MAX_LABELS_PER_ISSUE:
        return None, ErrorCode.LIMIT_REACHED
    if not fields and not added and not removed and not reassigned:
        return None, None
    return _Plan(issue, fields, added, removed, reassigned), None


def _refused(failures: list[FieldError], asked: int) -> DomainError:
    """One code for the whole refusal: the failures' own when they all share it."""
    codes = {failure.code for failure in failures}
    code = ErrorCode(codes.pop()) if len(codes) == 1 else ErrorCode.VALIDATION_FAILED
    return DomainError(
        code,
        f"{len(failures)} of the {asked} issues cannot change, so none did; "
        "`fields` names each with its code.",
        failures,
    )


async def _apply(
    connection: Connection,
    actor: Actor,
    workspace_id: str,
    plans: list[_Plan],
    removing: list[str],
    assignee: Assignee | None,
) -> dict[str, Issue]:
    if not plans:
        return {}
    moment = now()
    changed: dict[str, Issue] = {}
    # Plans that change the same fields share one UPDATE (a bulk change has one set).
    by_fields: dict[tuple[tuple[tuple[str, str], ...], bool], list[str]] = {}
    for plan in plans:
        key = (tuple(sorted(plan.fields.items())), plan.reassigned)
        by_fields.setdefault(key, []).append(plan.issue.id)
    for (fields, reassigned), issue_ids in by_fields.items():
        values: dict[str, Any] = dict(fields)
        if reassigned:
            values.update(assignee_columns(assignee))
        result = await connection.execute(
            update(issues)
            .where(issues.c.workspace_id == workspace_id, issues.c.id.in_(issue_ids))
            .values(updated_at=moment, **values)
            .returning(*ISSUE_COLUMNS)
        )
        changed.update({row[0]: issue_of(row) for row in result})
    additions = [(p.issue.id, label_id) for p in plans for label_id in p.added]
    await carry_labels(connection, workspace_id, additions, moment)
    # Every issue loses the same labels: one statement for them all.
    losing = [p.issue.id for p in plans if p.removed]
    if losing:
        await drop_labels(connection, workspace_id, losing, removing)
    await _record(connection, actor, workspace_id, plans, changed, assignee)
    return changed


async def _record(
    connection: Connection,
    actor: Actor,
    workspace_id: str,
    plans: list[_Plan],
    changed: dict[str, Issue],
    assignee: Assignee | None,
) -> None:
    plans_changed = [changed.get(p.issue.id, p.issue) for p in plans]
    shown_after = await issue_snapshots(connection, workspace_id, plans_changed)
    now_carried = await labels_of_issues_in(
        connection, workspace_id, [p.issue.id for p in plans if p.added or p.removed]
    )
    recorded: list[tuple[str, dict[str, Any]]] = []
    for plan in plans:
        shown = shown_after[plan.issue.id]
        if plan.fields:
            before = snapshots.issue(plan.issue, shown["requester"])
            changes = snapshots.changes(before, shown)
            changes.pop("messageCount", None)  # as updateIssue records it
            changes.pop("assignee", None)  # issue.assigned says it
            recorded.append(("issue.updated", {"issue": shown, "changes": changes}))
        if plan.reassigned:
            recorded.append(assigned_event(shown, assignee, plan.issue))
        if plan.added or plan.removed:
            carried = now_carried[plan.issue.id]
            recorded.append(labels_changed(shown, carried, plan.added, plan.removed))
    await record_events(connection, workspace_id, actor, recorded)
