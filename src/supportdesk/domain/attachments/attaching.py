"""Attachments join a message in the message's own transaction: all of them or, with the
message, none."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlalchemy import select, update

from supportdesk.db.connection import Connection
from supportdesk.db.tables import attachments
from supportdesk.domain.attachments.models import (
    ATTACHMENT_COLUMNS,
    MAX_PER_MESSAGE,
    Attachment,
    attachment_of,
)
from supportdesk.domain.errors import FieldCode
from supportdesk.domain.ids import is_id_of
from supportdesk.domain.validation import Validator

FIELD = "attachmentIds"


def checked_ids(check: Validator, given: Sequence[str] | None) -> list[str]:
    """The ids, each once, in the order given; TOO_MANY past what a message takes."""
    ids = list(dict.fromkeys(str(attachment_id) for attachment_id in given or ()))
    if len(ids) > MAX_PER_MESSAGE:
        check.fail(FIELD, FieldCode.TOO_MANY, f"A message takes at most {MAX_PER_MESSAGE} files.")
    return ids


async def attach(
    connection: Connection, workspace_id: str, message_id: str, ids: Sequence[str]
) -> list[Attachment]:
    """Give the uploads `ids` to the message, in the caller's transaction; VALIDATION_FAILED
    naming each id that is not an upload of this workspace (UNKNOWN: another workspace's
    and none give the same answer), has no bytes yet (NOT_UPLOADED) or belongs to a
    message already (ALREADY_ATTACHED)."""
    if not ids:
        return []
    found = await _locked(connection, workspace_id, ids)
    check = Validator()
    for attachment_id in ids:
        attachment = found.get(attachment_id)
        if attachment is None:
            check.fail(FIELD, FieldCode.UNKNOWN, f"{attachment_id}: no upload of this workspace.")
        elif not attachment.uploaded:
            check.fail(FIELD, FieldCode.NOT_UPLOADED, f"{attachment_id}: no bytes yet, PUT them.")
        elif attachment.message_id is not None:
            check.fail(FIELD, FieldCode.ALREADY_ATTACHED, f"{attachment_id}: another message's.")
    check.check()
    statement = (
        update(attachments)
        .where(attachments.c.workspace_id == workspace_id, attachments.c.id.in_(ids))
        .values(message_id=message_id)
    )
    await connection.execute(statement)
    return [_with_message(found[attachment_id], message_id) for attachment_id in ids]


async def _locked(
    connection: Connection, workspace_id: str, ids: Sequence[str]
) -> dict[str, Attachment]:
    """The workspace's attachments among `ids`, locked (in id order) to the transaction's end:
    two messages taking one upload at once take turns, and the second finds it taken."""
    wellformed = sorted(i for i in ids if is_id_of(i, "Attachment"))
    if not wellformed:
        return {}
    statement = (
        select(*ATTACHMENT_COLUMNS)
        .where(attachments.c.workspace_id == workspace_id, attachments.c.id.in_(wellformed))
        .order_by(attachments.c.id)
        .with_for_update()
    )
    rows = (await connection.execute(statement)).all()
    return {attachment.id: attachment for attachment in map(attachment_of, rows)}


def _with_message(attachment: Attachment, message_id: str) -> Attachment:
    return replace(attachment, message_id=message_id)
