"""Files that came with a message from outside (an e-mail's parts): stored at once, whole,
as uploads no message has taken yet. The message's own transaction then takes them
(`attach`); if it never does, the day-old uploads' cleanup removes them."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from datetime import datetime

from sqlalchemy import insert

from supportdesk.db import Database
from supportdesk.db.tables import attachments
from supportdesk.domain.attachments.models import (
    ATTACHMENT_COLUMNS,
    MAX_FILE_NAME,
    UNATTACHED_KEPT,
    Attachment,
    storage_key,
)
from supportdesk.domain.attachments.sniffing import HEAD_BYTES, sniffed_type
from supportdesk.domain.ids import new_id
from supportdesk.storage import ObjectStorage


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def store_received_file(
    db: Database,
    storage: ObjectStorage,
    workspace_id: str,
    file_name: str,
    data: bytes,
    at: datetime,
) -> Attachment:
    """Keep `data` (once per workspace, under its hash) and record it as an upload waiting
    for its message. Its type is sniffed from the bytes, whatever the mail declared."""
    sha256 = hashlib.sha256(data).hexdigest()
    key = storage_key(workspace_id, sha256)
    if not await storage.exists(key):
        await storage.put_stream(key, _once(data))
    attachment = Attachment(
        new_id("Attachment", at),
        workspace_id,
        None,
        file_name[:MAX_FILE_NAME],
        len(data),
        sniffed_type(data[:HEAD_BYTES]),
        sha256,
        key,
        at,
        at,
        at + UNATTACHED_KEPT,
        None,
    )
    row = {column.name: getattr(attachment, column.name) for column in ATTACHMENT_COLUMNS}
    async with db.transaction() as connection:
        await connection.execute(insert(attachments).values(**row))
    return attachment
