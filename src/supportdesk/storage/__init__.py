"""Where attachments' bytes are kept: one small interface (`ObjectStorage`) over obstore,
on local disk (`file://`) or any S3-compatible store (`s3://bucket/prefix`)."""

from supportdesk.storage.location import storage_for, storage_url_for
from supportdesk.storage.objects import ObjectStorage

__all__ = ["ObjectStorage", "storage_for", "storage_url_for"]
