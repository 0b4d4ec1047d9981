"""The one interface to stored objects: write a stream, read it back as a stream, move,
look up and delete, by key. Nothing holds a whole object in memory.

obstore is pinned to its minor version (it is before 1.0): this relies on `put_async`
taking an async iterator as a multipart upload that is aborted, leaving no object, when
the iterator raises, and on a missing object raising FileNotFoundError
(tests/storage/test_objects.py checks both on each kind of store)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from typing import Any

import obstore

# The parts of a stream read back: big enough that a chunk costs little, small enough
# that a slow reader holds little.
READ_CHUNK_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class ObjectStorage:
    """An obstore store and how it takes a stream: `part_bytes` per part of a multipart
    upload (S3 takes no part under 5 MiB but the last), `parts_at_once` in flight; the two
    bound the memory one upload holds."""

    store: Any
    part_bytes: int
    parts_at_once: int = 2
    description: str = ""

    async def put_stream(self, key: str, chunks: AsyncIterable[bytes]) -> None:
        """Store what `chunks` yields; when it raises, the upload is abandoned and the
        error raised again, and nothing is stored under `key`."""
        await obstore.put_async(
            self.store,
            key,
            chunks,
            use_multipart=True,
            chunk_size=self.part_bytes,
            max_concurrency=self.parts_at_once,
        )

    async def read_stream(self, key: str) -> AsyncIterator[bytes]:
        """The object's bytes, a chunk at a time; FileNotFoundError when there is none
        (raised before the first chunk)."""
        found = await obstore.get_async(self.store, key)
        return _chunks(found.stream(min_chunk_size=READ_CHUNK_BYTES))

    async def exists(self, key: str) -> bool:
        try:
            await obstore.head_async(self.store, key)
        except FileNotFoundError:
            return False
        return True

    async def move(self, source: str, target: str) -> None:
        """`source` becomes `target`, replacing any object there."""
        await obstore.rename_async(self.store, source, target, overwrite=True)

    async def delete(self, key: str) -> None:
        """Gone; an object already gone is no error."""
        with contextlib.suppress(FileNotFoundError):
            await obstore.delete_async(self.store, key)


async def _chunks(stream: AsyncIterable[Any]) -> AsyncIterator[bytes]:
    async for chunk in stream:
        yield bytes(chunk)
