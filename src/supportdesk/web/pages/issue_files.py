"""The issue page's files: an upload from the composer (a multipart POST, its bytes to the
store through the domain, kept waiting until a reply or note takes it), and a download
with the member's session, as safe as the API's (docs/attachments.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from starlette.datastructures import UploadFile
from starlette.responses import JSONResponse, Response, StreamingResponse

from supportdesk.config import Settings
from supportdesk.domain import attachments
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode
from supportdesk.rest.attachments import SAFE_DOWNLOAD_HEADERS, content_disposition
from supportdesk.storage import ObjectStorage, storage_for, storage_url_for
from supportdesk.web.endpoint import MAX_FORM_BYTES, BodyLimits, Page
from supportdesk.web.render import SECURITY_HEADERS

UPLOAD_CHUNK_BYTES = 256 * 1024
# The composer's text fields ride along with the file (the page keeps them on a reload).
COMPOSER_PART_BYTES = 1024 * 1024

_stores: dict[str, ObjectStorage] = {}


def storage_of(settings: Settings) -> ObjectStorage:
    """The store the API's attachments use, one per storage URL in this process."""
    url = storage_url_for(settings)
    if url not in _stores:
        _stores[url] = storage_for(settings)
    return _stores[url]


def upload_limits(settings: Settings) -> BodyLimits:
    return BodyLimits(
        total=settings.attachment_max_bytes + COMPOSER_PART_BYTES + MAX_FORM_BYTES,
        files=1,
        part=COMPOSER_PART_BYTES,
    )


async def _chunks(upload: UploadFile) -> AsyncIterator[bytes]:
    await upload.seek(0)
    while chunk := await upload.read(UPLOAD_CHUNK_BYTES):
        yield chunk


def chosen_file(page: Page) -> UploadFile | None:
    found = page.form.get("file")
    if isinstance(found, UploadFile) and found.filename:
        return found
    return None


async def store_upload(page: Page, upload: UploadFile) -> attachments.Attachment:
    """An attachment of the workspace with the file's bytes, attached to nothing yet. The
    member stands where an API key would: only they may send its bytes."""
    settings = page.web.settings
    waiting = await attachments.create_upload(
        page.db,
        page.workspace_id,
        page.me.admin.id,
        now(),
        file_name=upload.filename,
        size_bytes=upload.size,
        # The type kept is sniffed from the bytes; what the browser says is not needed.
        content_type=None,
        max_bytes=settings.attachment_max_bytes,
    )
    return await attachments.receive_upload(
        page.db,
        storage_of(settings),
        page.workspace_id,
        page.me.admin.id,
        waiting.id,
        _chunks(upload),
        now(),
    )


def attachment_json(found: attachments.Attachment) -> dict[str, Any]:
    return {
        "id": found.id,
        "fileName": found.file_name,
        "sizeBytes": found.size_bytes,
        "contentType": found.content_type,
    }


def upload_refusal(error: DomainError) -> str:
    for problem in error.fields:
        if problem.field == "sizeBytes" and problem.code == "TOO_LARGE":
            return "That file is too large: " + error.message.rstrip(".") + "."
        if problem.field == "sizeBytes":
            return "That file is empty: choose a file with something in it."
        if problem.field == "fileName":
            return "That file's name cannot be used: rename it and try again."
    return error.message


def json_refusal(message: str, status: int) -> Response:
    return JSONResponse({"error": {"message": message}}, status, headers=SECURITY_HEADERS)


async def pending_uploads(page: Page, ids: list[str]) -> list[attachments.Attachment]:
    """The uploads the composer holds, as this member left them; others are dropped (a
    send with them would be refused by the domain anyway)."""
    found = []
    for attachment_id in dict.fromkeys(ids):
        upload = await attachments.find_attachment(page.db, page.workspace_id, attachment_id)
        if (
            upload is not None
            and upload.uploaded
            and upload.message_id is None
            and upload.uploader_key_id == page.me.admin.id
        ):
            found.append(upload)
    return found


async def download(page: Page) -> Response:
    """The file's bytes as an attachment: never shown inline, never run, never sniffed."""
    try:
        found, chunks = await attachments.open_attachment(
            page.db,
            storage_of(page.web.settings),
            page.workspace_id,
            str(page.request.path_params["attachment_id"]),
        )
    except DomainError as error:
        if error.code != ErrorCode.NOT_FOUND:
            raise
        return page.problem(404, "File not found", "There is no such file here.")
    headers = {
        **SECURITY_HEADERS,
        **SAFE_DOWNLOAD_HEADERS,
        "Content-Disposition": content_disposition(found.file_name),
        "Content-Length": str(found.size_bytes),
    }
    return StreamingResponse(chunks, headers=headers, media_type=found.content_type)
