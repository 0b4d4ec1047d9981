"""An attachment: a file a message carries, its bytes in the object store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any

from supportdesk.db.tables import attachments

# What a message takes, and how long an upload waits for its bytes and for a message.
MAX_PER_MESSAGE = 25
UPLOAD_VALIDITY = timedelta(hours=1)
UNATTACHED_KEPT = timedelta(hours=24)
MAX_FILE_NAME = 255
# The type of bytes the sniffer does not know, and of an upload still waiting for them.
UNKNOWN_TYPE = "application/octet-stream"


@dataclass(frozen=True, slots=True)
class Attachment:
    id: str
    workspace_id: str
    message_id: str | None
    file_name: str
    size_bytes: int
    content_type: str
    sha256: str | None
    storage_key: str | None
    created_at: datetime
    uploaded_at: datetime | None
    expires_at: datetime
    # The key that asked for the upload: the only one that may send its bytes.
    uploader_key_id: str | None

    @property
    def uploaded(self) -> bool:
        return self.uploaded_at is not None


ATTACHMENT_COLUMNS = tuple(attachments.c[f.name] for f in fields(Attachment))


def attachment_of(row: Sequence[Any]) -> Attachment:
    """An Attachment from a row that starts with ATTACHMENT_COLUMNS."""
    return Attachment(*row[: len(ATTACHMENT_COLUMNS)])


def storage_key(workspace_id: str, sha256: str) -> str:
    """Where a workspace keeps these bytes: one object for identical files."""
    return f"{workspace_id}/{sha256}"


def draft_key(workspace_id: str, attachment_id: str) -> str:
    """Where an upload's bytes go while they arrive, before their hash is known."""
    return f"{workspace_id}/uploads/{attachment_id}"


def content_path(attachment_id: str) -> str:
    """Where the bytes are sent (PUT) and fetched (GET), under the server's address."""
    return f"/v1/attachments/{attachment_id}/content"
