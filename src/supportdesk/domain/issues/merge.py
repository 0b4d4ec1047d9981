"""mergeIssue (docs/working-issues.md): a duplicate's thread joins the issue it duplicates.

Both issues are locked in id order (two merges of the same pair never wait for each other
in a circle). The source's messages move to the target, whose thread stays in time order
because message ids sort by creation time; the source is closed for good, points at the
target with `merged_into`, keeps its id, ticket number and labels, and refuses every later
change with ISSUE_MERGED. One transaction, one `issue.merged` event. The full-text index
follows: the target's entry gains the source's bodies, the source's keeps its subject."""

from __future__ import annotations

from sqlalchemy import bindparam, update

from supportdesk.db import Database
from supportdesk.db.tables import issues, messages
from supportdesk.domain.audit import Actor
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, FieldError, not_found
from supportdesk.domain.events import record_events
from supportdesk.domain.issues.actions import issue_snapshots, locked_issues
from supportdesk.domain.issues.models import ISSUE_COLUMNS, Issue, issue_of
from supportdesk.domain.issues.search import ISSUE_SEARCH, THREAD
from supportdesk.domain.issues.workflow import ensure_open_for_changes

_MOVE_THREAD = (
    update(messages)
    .where(
        messages.c.workspace_id == bindparam("in_workspace"),
        messages.c.issue_id == bindparam("from_issue"),
    )
    .values(issue_id=bindparam("to_issue"))
)
_GROW_TARGET = (
    update(issues)
    .where(issues.c.workspace_id == bindparam("in_workspace"), issues.c.id == bindparam("the_id"))
    .values(
        message_count=issues.c.message_count
        + bindparam("moved", type_=issues.c.message_count.type),
        updated_at=bindparam("new_updated_at", type_=issues.c.updated_at.type),
    )
    .returning(*ISSUE_COLUMNS)
)
_CLOSE_SOURCE = (
    update(issues)
    .where(issues.c.workspace_id == bindparam("in_workspace"), issues.c.id == bindparam("the_id"))
    .values(
        status="closed",
        merged_into=bindparam("into", type_=issues.c.merged_into.type),
        message_count=0,
        updated_at=bindparam("new_updated_at", type_=issues.c.updated_at.type),
    )
    .returning(*ISSUE_COLUMNS)
)


async def merge_issue(
    db: Database, actor: Actor, workspace_id: str, source_id: str, target_id: str
) -> tuple[Issue, Issue]:
    """Merge `source_id` into `target_id`; returns (source, target) as they are after."""
    if source_id == target_id:
        raise DomainError(
            ErrorCode.VALIDATION_FAILED,
            "An issue cannot be merged into itself.",
            [FieldError("targetId", FieldCode.INVALID)],
        )
    moment = now()
    async with db.transaction() as connection:
        found = await locked_issues(connection, workspace_id, [source_id, target_id])
        if len(found) != 2:
            raise not_found("Issue")
        source, target = found[source_id], found[target_id]
        ensure_open_for_changes(source.status, source.merged_into)
        ensure_open_for_changes(target.status, target.merged_into)
        await connection.execute(
            _MOVE_THREAD,
            {"in_workspace": workspace_id, "from_issue": source.id, "to_issue": target.id},
        )
        keys = (workspace_id, source.id), (workspace_id, target.id)
        await ISSUE_SEARCH.move(connection, THREAD, *keys)
        common = {"in_workspace": workspace_id, "new_updated_at": moment}
        [grown] = await connection.rows(
            _GROW_TARGET, {**common, "the_id": target.id, "moved": source.message_count}
        )
        [closed] = await connection.rows(
            _CLOSE_SOURCE, {**common, "the_id": source.id, "into": target.id}
        )
        merged, into = issue_of(closed), issue_of(grown)
        shown = await issue_snapshots(connection, workspace_id, [merged, into])
        data = {
            "issue": shown[merged.id],
            "mergedInto": shown[into.id],
            "movedMessages": source.message_count,
        }
        await record_events(connection, workspace_id, actor, [("issue.merged", data)])
    return merged, into
