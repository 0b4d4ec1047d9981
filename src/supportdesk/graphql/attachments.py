"""Attachment: a file of a message (docs/attachments.md). Its type, the upload mutation,
and the inputs' `attachmentIds`."""

from __future__ import annotations

from datetime import datetime

import strawberry

from supportdesk.domain import attachments
from supportdesk.domain.attachments.models import content_path
from supportdesk.domain.clock import now
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import MutationError, mutate

ATTACHMENT_IDS_DESCRIPTION = (
    "Up to 25 uploads (createAttachmentUpload, then a PUT of the bytes) this message takes, "
    "in the same transaction. An id that is no upload of the workspace (UNKNOWN), has no "
    "bytes yet (NOT_UPLOADED) or belongs to a message (ALREADY_ATTACHED) fails the call: "
    "VALIDATION_FAILED, field `attachmentIds`."
)


@strawberry.type(description="A file of a message.")
class Attachment:
    id: strawberry.ID
    file_name: str
    size_bytes: int
    content_type: str = strawberry.field(
        description="Sniffed from the bytes (`application/octet-stream` when they show none "
        "or before they are uploaded), never taken from the client."
    )
    download_url: str = strawberry.field(
        description="GET it with a key that reads issues: the bytes, always as a download."
    )

    @classmethod
    def of(cls, attachment: attachments.Attachment, base_url: str) -> Attachment:
        return cls(
            id=strawberry.ID(attachment.id),
            file_name=attachment.file_name,
            size_bytes=attachment.size_bytes,
            content_type=attachment.content_type,
            download_url=base_url + content_path(attachment.id),
        )


@strawberry.input(description="The file to come; its bytes follow in a PUT to `uploadUrl`.")
class CreateAttachmentUploadInput:
    file_name: str | None = strawberry.field(
        default=None, description="Required, up to 255 characters; a folder before it is dropped."
    )
    size_bytes: int | None = strawberry.field(
        default=None,
        description="Required: exactly how many bytes the PUT sends, at most the server's "
        "limit (25 MB by default; larger: `sizeBytes` TOO_LARGE).",
    )
    content_type: str | None = strawberry.field(
        default=None, description="What the client believes; the type kept is sniffed."
    )


@strawberry.type
class CreateAttachmentUploadPayload:
    attachment: Attachment | None = None
    upload_url: str | None = strawberry.field(
        default=None,
        description="PUT exactly `sizeBytes` bytes here with the same key (answers 201); "
        "another size answers 400 SIZE_MISMATCH and keeps nothing.",
    )
    expires_at: datetime | None = strawberry.field(
        default=None,
        description="The upload URL answers 410 UPLOAD_EXPIRED after this. An upload no "
        "message takes is deleted a day after it was made.",
    )
    error: MutationError | None = None


@strawberry.type
class AttachmentMutations:
    @strawberry.mutation(description="Start an upload: an attachment and the URL for its bytes.")
    async def create_attachment_upload(
        self, info: Info, input: CreateAttachmentUploadInput
    ) -> CreateAttachmentUploadPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            made = await attachments.create_upload(
                context.db,
                context.workspace_id,
                context.principal.key_id,
                now(),
                file_name=input.file_name,
                size_bytes=input.size_bytes,
                content_type=input.content_type,
                max_bytes=context.attachment_max_bytes,
            )
            return {
                "attachment": Attachment.of(made, context.base_url),
                "upload_url": context.base_url + content_path(made.id),
                "expires_at": made.expires_at,
            }

        return await mutate(CreateAttachmentUploadPayload, action)


def attachment_ids_of(given: list[strawberry.ID] | None) -> list[str]:
    return [str(attachment_id) for attachment_id in given or ()]
