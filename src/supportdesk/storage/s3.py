"""Attachments in an S3-compatible store, so that several machines share them: the bucket
and a prefix from `s3://bucket/prefix`; credentials and region from the usual AWS_*
variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, …); an endpoint of a
store other than AWS from SUPPORTDESK_S3_ENDPOINT_URL (plain http allowed only there)."""

from __future__ import annotations

from obstore.store import S3Store

from supportdesk.storage.objects import ObjectStorage

# S3 takes no part of a multipart upload under 5 MiB but the last.
PART_BYTES = 5 * 1024 * 1024


def s3_storage(bucket: str, prefix: str, endpoint_url: str | None) -> ObjectStorage:
    store = S3Store(  # reads the AWS_* variables too
        bucket,
        prefix=prefix or None,
        endpoint=endpoint_url or None,
        client_options={"allow_http": bool(endpoint_url and endpoint_url.startswith("http://"))},
    )
    shown = f"s3://{bucket}/{prefix}".rstrip("/")
    return ObjectStorage(store, PART_BYTES, description=shown)
