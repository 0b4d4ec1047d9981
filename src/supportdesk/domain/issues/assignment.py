"""Who works on an issue: a member or a machine user of the workspace
(docs/working-issues.md). assignIssue and updateIssues(assigneeId) both go through here.

The assignee is read before the issue is locked, under FOR KEY SHARE on PostgreSQL: a
member being removed is waited for and then not found, and removeMember (which locks the
member, then unassigns its issues) never waits on an issue this writer holds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, bindparam, select

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import issues, machine_users, org_admins
from supportdesk.domain.audit import Actor
from supportdesk.domain.clock import now
from supportdesk.domain.errors import FieldCode
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.ids import type_of
from supportdesk.domain.issues.actions import issue_snapshot, locked_issue
from supportdesk.domain.issues.models import ISSUE_COLUMNS, Issue, issue_of
from supportdesk.domain.issues.workflow import ensure_open_for_changes
from supportdesk.domain.rows import updated_row
from supportdesk.domain.validation import Validator

MEMBER = "member"
MACHINE_USER = "machine_user"


@dataclass(frozen=True, slots=True)
class Assignee:
    type: str  # MEMBER or MACHINE_USER
    id: str
    name: str


def _kept(table: Table) -> Any:
    return (
        select(table.c.name)
        .where(table.c.workspace_id == bindparam("workspace_id"), table.c.id == bindparam("id"))
        .with_for_update(read=True, key_share=True)
    )


# By the id's type: the assignee's kind and the statement that finds (and keeps) it.
_KINDS = {
    "Member": (MEMBER, _kept(org_admins)),
    "MachineUser": (MACHINE_USER, _kept(machine_users)),
}


async def found_assignee(
    connection: Connection, workspace_id: str, assignee_id: str | None, field: str
) -> Assignee | None:
    """The member or machine user `assignee_id` names, kept until the transaction ends;
    None for nobody. Any other id (another workspace's, another type's, nothing's) fails
    the call: `field` UNKNOWN."""
    if assignee_id is None:
        return None
    kind = _KINDS.get(type_of(assignee_id) or "")
    rows = []
    if kind is not None:
        rows = await connection.rows(kind[1], {"workspace_id": workspace_id, "id": assignee_id})
    if not rows:
        check = Validator()
        check.fail(field, FieldCode.UNKNOWN)
        check.check()
    assert kind is not None
    return Assignee(kind[0], assignee_id, rows[0][0])


def is_assigned_to(issue: Issue, assignee: Assignee | None) -> bool:
    if assignee is None:
        return issue.assignee_id is None
    return issue.assignee_type == assignee.type and issue.assignee_id == assignee.id


def assignee_columns(assignee: Assignee | None) -> dict[str, str | None]:
    """The issue's columns that say who works on it."""
    if assignee is None:
        return {"assignee_type": None, "assignee_id": None}
    return {"assignee_type": assignee.type, "assignee_id": assignee.id}


def assigned_event(
    shown: snapshots.Snapshot, assignee: Assignee | None, before: Issue
) -> tuple[str, dict[str, Any]]:
    """`issue.assigned`: the issue, who works on it now (with their name), and before."""
    return (
        "issue.assigned",
        {
            "issue": shown,
            "assignee": None
            if assignee is None
            else {"type": assignee.type, "id": assignee.id, "name": assignee.name},
            "previousAssignee": snapshots.assignee(before.assignee_type, before.assignee_id),
        },
    )


async def assign_issue(
    db: Database, actor: Actor, workspace_id: str, issue_id: str, assignee_id: str | None
) -> Issue:
    """Give the issue to a member or a machine user, or to nobody (`assignee_id` None).
    The same assignee again is no change and records nothing."""
    async with db.transaction() as connection:
        assignee = await found_assignee(connection, workspace_id, assignee_id, "assigneeId")
        issue = await locked_issue(connection, workspace_id, issue_id)
        ensure_open_for_changes(issue.status, issue.merged_into)
        if is_assigned_to(issue, assignee):
            return issue
        values = {**assignee_columns(assignee), "updated_at": now()}
        row = await updated_row(connection, issues, ISSUE_COLUMNS, workspace_id, issue.id, **values)
        changed = issue_of(row)
        shown = await issue_snapshot(connection, changed)
        await record_events(
            connection, workspace_id, actor, [assigned_event(shown, assignee, issue)]
        )
    return changed
