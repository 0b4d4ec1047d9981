"""SUPPORTDESK_STORAGE_URL to a store: `file://PATH` (a relative path is taken from the
working folder, as the SQLite default `./data/supportdesk.db` is) or `s3://bucket/prefix`.
Unset, attachments go to the folder `attachments` beside the SQLite file, or to
./data/attachments on PostgreSQL (give several machines an s3:// URL)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from sqlalchemy.engine import make_url

from supportdesk.config import Settings
from supportdesk.storage.local import local_storage
from supportdesk.storage.objects import ObjectStorage
from supportdesk.storage.s3 import s3_storage

DEFAULT_URL = "file://./data/attachments"
FOLDER_NAME = "attachments"


class StorageUrlError(ValueError):
    """SUPPORTDESK_STORAGE_URL is not one of the URLs we take."""


def storage_url_for(settings: Settings) -> str:
    """The storage URL in force: the setting, or the default beside the SQLite file."""
    if settings.storage_url:
        return settings.storage_url
    if settings.is_sqlite:
        database = make_url(settings.database_url).database
        if database and database != ":memory:":
            return f"file://{Path(database).resolve().parent / FOLDER_NAME}"
    return DEFAULT_URL


def storage_for(settings: Settings) -> ObjectStorage:
    url = storage_url_for(settings)
    parts = urlsplit(url)
    if parts.scheme == "file":
        # `file://./data` puts `.` where a host would be: the path starts there.
        path = unquote(parts.netloc + parts.path)
        if not path:
            raise StorageUrlError(
                "A file:// storage URL needs a path, e.g. file://./data/attachments."
            )
        return local_storage(Path(path))
    if parts.scheme == "s3":
        if not parts.netloc:
            raise StorageUrlError("An s3:// storage URL needs a bucket, e.g. s3://bucket/prefix.")
        return s3_storage(parts.netloc, parts.path.strip("/"), settings.s3_endpoint_url)
    raise StorageUrlError("SUPPORTDESK_STORAGE_URL takes file://PATH or s3://bucket/prefix.")
