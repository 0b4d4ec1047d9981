"""The first two steps of an attachment: createAttachmentUpload makes the row and the URL's
deadline; the PUT to that URL streams the bytes to the store, counting and hashing them,
and keeps them only when they are exactly as many as declared."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import AsyncIterable, AsyncIterator
from datetime import datetime

from sqlalchemy import insert, select, update

from supportdesk.db import Database
from supportdesk.db.tables import attachments
from supportdesk.domain.attachments.models import (
    ATTACHMENT_COLUMNS,
    MAX_FILE_NAME,
    UNKNOWN_TYPE,
    UPLOAD_VALIDITY,
    Attachment,
    attachment_of,
    draft_key,
    storage_key,
)
from supportdesk.domain.attachments.sniffing import HEAD_BYTES, sniffed_type
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, not_found
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.validation import BIDI_CONTROLS, CONTROL_CHARACTERS, Validator
from supportdesk.storage import ObjectStorage

# A type as RFC 6838 writes one (`type/subtype`), parameters allowed.
_MEDIA_TYPE = re.compile(r"\A[\w.+-]+/[\w.+-]+(?:\s*;.*)?\Z")
_CONTROL = re.compile(f"[{CONTROL_CHARACTERS}{BIDI_CONTROLS}]")


def _file_name(check: Validator, value: str | None) -> str | None:
    """The name without any folder a client put before it; no control characters, none
    that reorders text."""
    name = check.text("fileName", value, MAX_FILE_NAME, required=True)
    if name is None:
        return None
    name = re.split(r"[/\\]", name)[-1].strip()
    if not name or name in (".", "..") or _CONTROL.search(name):
        check.fail(
            "fileName",
            FieldCode.INVALID,
            "A file name is one name: no folder, no control characters.",
        )
    return name


def _size(check: Validator, value: int | None, max_bytes: int) -> int:
    if value is None:
        check.fail("sizeBytes", FieldCode.REQUIRED)
        return 0
    if value < 1:
        check.fail("sizeBytes", FieldCode.INVALID, "sizeBytes counts the file's bytes, from 1.")
    elif value > max_bytes:
        check.fail("sizeBytes", FieldCode.TOO_LARGE, f"A file takes at most {max_bytes} bytes.")
    return value


def _declared_type(check: Validator, value: str | None) -> None:
    """Checked for form only: the type kept is the one the bytes show."""
    if value is not None and (len(value) > 255 or not _MEDIA_TYPE.match(value.strip())):
        check.fail("contentType", FieldCode.INVALID, "contentType is a media type, e.g. image/png.")


async def create_upload(
    db: Database,
    workspace_id: str,
    uploader_key_id: str,
    at: datetime,
    *,
    file_name: str | None,
    size_bytes: int | None,
    content_type: str | None,
    max_bytes: int,
) -> Attachment:
    """An attachment waiting for its bytes until `expires_at`; its type is unknown until
    they come."""
    check = Validator()
    name = _file_name(check, file_name)
    size = _size(check, size_bytes, max_bytes)
    _declared_type(check, content_type)
    check.check()
    assert name is not None
    attachment = Attachment(
        new_id("Attachment", at),
        workspace_id,
        None,
        name,
        size,
        UNKNOWN_TYPE,
        None,
        None,
        at,
        None,
        at + UPLOAD_VALIDITY,
        uploader_key_id,
    )
    async with db.transaction() as connection:
        await connection.execute(insert(attachments).values(**_row(attachment)))
    return attachment


def _row(attachment: Attachment) -> dict[str, object]:
    return {column.name: getattr(attachment, column.name) for column in ATTACHMENT_COLUMNS}


async def find_attachment(db: Database, workspace_id: str, attachment_id: str) -> Attachment | None:
    """The workspace's attachment; None for another workspace's, a malformed id or none."""
    if not is_id_of(attachment_id, "Attachment"):
        return None
    statement = select(*ATTACHMENT_COLUMNS).where(
        attachments.c.workspace_id == workspace_id, attachments.c.id == attachment_id
    )
    async with db.read() as connection:
        row = (await connection.execute(statement)).first()
    return attachment_of(row) if row is not None else None


class _Counted:
    """Passes a body's chunks on while counting and hashing them; raises SIZE_MISMATCH
    as soon as they pass the declared size, so no more is stored."""

    def __init__(self, chunks: AsyncIterable[bytes], expected: int) -> None:
        self._chunks = chunks
        self.expected = expected
        self.count = 0
        self.digest = hashlib.sha256()
        self.head = bytearray()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._chunks:
            if not chunk:
                continue
            self.count += len(chunk)
            if self.count > self.expected:
                raise size_mismatch(self.expected, f"more than {self.expected}")
            self.digest.update(chunk)
            if len(self.head) < HEAD_BYTES:
                self.head += chunk[: HEAD_BYTES - len(self.head)]
            yield chunk


def size_mismatch(expected: int, received: str) -> DomainError:
    return DomainError(
        ErrorCode.SIZE_MISMATCH,
        f"The upload declared {expected} bytes and sent {received}; nothing was kept."
        " Upload exactly sizeBytes bytes.",
    )


def _receivable(found: Attachment | None, key_id: str, at: datetime) -> Attachment:
    if found is None:
        raise not_found("Attachment")
    if found.uploader_key_id != key_id:
        raise DomainError(
            ErrorCode.FORBIDDEN,
            "Send an upload's bytes with the key that called createAttachmentUpload.",
        )
    if found.uploaded:
        raise DomainError(
            ErrorCode.ALREADY_UPLOADED, "This attachment's bytes were uploaded already."
        )
    if at >= found.expires_at:
        raise DomainError(
            ErrorCode.UPLOAD_EXPIRED,
            "This upload URL has expired; call createAttachmentUpload again.",
        )
    return found


async def receive_upload(
    db: Database,
    storage: ObjectStorage,
    workspace_id: str,
    key_id: str,
    attachment_id: str,
    chunks: AsyncIterable[bytes],
    at: datetime,
) -> Attachment:
    """Stream the bytes to the store under a draft key, then, if they are exactly the
    declared size, keep them under their hash (once per workspace) and record them.
    Any failure leaves no object and the attachment waiting as before."""
    found = await find_attachment(db, workspace_id, attachment_id)
    waiting = _receivable(found, key_id, at)
    # A key of this request's own: two PUTs at once never write one object.
    draft = f"{draft_key(workspace_id, attachment_id)}.{secrets.token_hex(8)}"
    counted = _Counted(chunks, waiting.size_bytes)
    try:
        await storage.put_stream(draft, counted)
        if counted.count != waiting.size_bytes:
            raise size_mismatch(waiting.size_bytes, str(counted.count))
    except BaseException:
        await storage.delete(draft)  # a multipart upload cut short left none; a short one did
        raise
    sha256 = counted.digest.hexdigest()
    key = storage_key(workspace_id, sha256)
    created = not await storage.exists(key)
    if created:
        await storage.move(draft, key)
    else:
        await storage.delete(draft)
    kept = await _record_upload(db, waiting, sha256, key, sniffed_type(bytes(counted.head)), at)
    if kept is None:
        if created:
            await _forget_unless_held(db, storage, workspace_id, sha256)
        raise DomainError(
            ErrorCode.ALREADY_UPLOADED, "This attachment's bytes were uploaded already."
        )
    return kept


async def _record_upload(
    db: Database, waiting: Attachment, sha256: str, key: str, content_type: str, at: datetime
) -> Attachment | None:
    """The attachment with its bytes; None when another request recorded them first."""
    statement = (
        update(attachments)
        .where(
            attachments.c.workspace_id == waiting.workspace_id,
            attachments.c.id == waiting.id,
            attachments.c.uploaded_at.is_(None),
        )
        .values(sha256=sha256, storage_key=key, content_type=content_type, uploaded_at=at)
        .returning(*ATTACHMENT_COLUMNS)
    )
    async with db.transaction() as connection:
        row = (await connection.execute(statement)).first()
    return attachment_of(row) if row is not None else None


_HOLDERS = select(attachments.c.id).limit(1)


async def is_held(db: Database, workspace_id: str, sha256: str) -> bool:
    """Whether any attachment of the workspace keeps these bytes."""
    statement = _HOLDERS.where(
        attachments.c.workspace_id == workspace_id, attachments.c.sha256 == sha256
    )
    async with db.read() as connection:
        return (await connection.execute(statement)).first() is not None


async def _forget_unless_held(
    db: Database, storage: ObjectStorage, workspace_id: str, sha256: str
) -> None:
    if not await is_held(db, workspace_id, sha256):
        await storage.delete(storage_key(workspace_id, sha256))
