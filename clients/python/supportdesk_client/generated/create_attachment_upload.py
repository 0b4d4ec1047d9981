from datetime import datetime
from typing import Optional

from .base_model import BaseModel
from .fragments import AttachmentFields, MutationErrorFields


class CreateAttachmentUpload(BaseModel):
    create_attachment_upload: Optional["CreateAttachmentUploadCreateAttachmentUpload"]


class CreateAttachmentUploadCreateAttachmentUpload(BaseModel):
    attachment: Optional["CreateAttachmentUploadCreateAttachmentUploadAttachment"]
    upload_url: Optional[str]
    expires_at: Optional[datetime]
    error: Optional["CreateAttachmentUploadCreateAttachmentUploadError"]


CreateAttachmentUploadCreateAttachmentUploadAttachment = AttachmentFields
CreateAttachmentUploadCreateAttachmentUploadError = MutationErrorFields
CreateAttachmentUpload.model_rebuild()
CreateAttachmentUploadCreateAttachmentUpload.model_rebuild()
