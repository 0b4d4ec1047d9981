"""Attachments on local disk: a folder, made when missing. Several processes of one
machine share it; several machines need S3 (s3.py)."""

from __future__ import annotations

from pathlib import Path

from obstore.store import LocalStore

from supportdesk.storage.objects import ObjectStorage

# No part-size minimum on disk: small parts keep an upload's memory small.
PART_BYTES = 1024 * 1024


def local_storage(folder: Path) -> ObjectStorage:
    folder = folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    return ObjectStorage(LocalStore(folder), PART_BYTES, description=f"file://{folder}")
