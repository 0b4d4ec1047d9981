"""What storage/objects.py relies on in obstore (pinned below 1.0), on local disk and on a
real S3 server: a stream that fails stores nothing, a missing object is FileNotFoundError,
and bytes come back as a stream of chunks."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import obstore
import pytest

from supportdesk.config import Settings
from supportdesk.storage import ObjectStorage, storage_for
from supportdesk.storage.location import StorageUrlError
from tests.attachments.conftest import s3_endpoint

__all__ = ["s3_endpoint"]


@pytest.fixture(params=["local", "s3"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ObjectStorage]:
    if request.param == "local":
        yield storage_for(Settings(storage_url=f"file://{tmp_path}/objects"))
        return
    endpoint = request.getfixturevalue("s3_endpoint")
    bucket = f"objects-{os.urandom(4).hex()}"
    assert httpx.put(f"{endpoint}/{bucket}").status_code == 200
    yield storage_for(Settings(storage_url=f"s3://{bucket}/p", s3_endpoint_url=endpoint))


async def chunks(count: int, fail_at: int | None = None) -> AsyncIterator[bytes]:
    for n in range(count):
        if n == fail_at:
            raise ValueError("the client went away")
        yield bytes([n % 256]) * (1024 * 1024)


def keys(storage: ObjectStorage) -> list[str]:
    return sorted(o["path"] for batch in obstore.list(storage.store) for o in batch)


def test_a_stream_that_fails_stores_nothing(storage: ObjectStorage) -> None:
    with pytest.raises(ValueError, match="went away"):
        asyncio.run(storage.put_stream("ws/draft", chunks(12, fail_at=7)))

    assert keys(storage) == []
    assert not asyncio.run(storage.exists("ws/draft"))


def test_a_missing_object_is_not_found(storage: ObjectStorage) -> None:
    with pytest.raises(FileNotFoundError):
        asyncio.run(storage.read_stream("ws/none"))
    asyncio.run(storage.delete("ws/none"))  # no error


def test_bytes_go_in_and_come_back_in_chunks_moved_and_deleted(storage: ObjectStorage) -> None:
    async def round_trip() -> list[int]:
        await storage.put_stream("ws/draft", chunks(7))
        await storage.move("ws/draft", "ws/final")
        read = [len(chunk) async for chunk in await storage.read_stream("ws/final")]
        await storage.delete("ws/final")
        return read

    sizes = asyncio.run(round_trip())

    assert sum(sizes) == 7 * 1024 * 1024 and len(sizes) > 1
    assert keys(storage) == []


def test_storage_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    beside = storage_for(Settings(database_url=f"sqlite:///{tmp_path}/db/desk.db"))
    relative = storage_for(Settings(storage_url="file://./files"))
    on_postgres = storage_for(Settings(database_url="postgresql://localhost/desk"))

    assert beside.description == f"file://{tmp_path}/db/attachments"
    assert relative.description == f"file://{tmp_path}/files"
    assert on_postgres.description == f"file://{tmp_path}/data/attachments"
    for wrong in ("ftp://host/x", "s3://", "file://"):
        with pytest.raises(StorageUrlError):
            storage_for(Settings(storage_url=wrong))
