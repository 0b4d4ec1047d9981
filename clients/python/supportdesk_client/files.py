"""What both clients' attachment helpers share: the file to send (a path or bytes) and
where a download goes (a path or a binary file), read and written a chunk at a time, and
the REST-shaped errors of the PUT and GET as this client's exceptions."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Union

import httpx

from .answers import retry_after
from .errors import ApiError, InvalidRequest, RateLimited, error_class
from .generated import AttachmentFields

CHUNK_BYTES = 256 * 1024

Source = Union[str, "os.PathLike[str]", bytes]
Target = Union[str, "os.PathLike[str]", IO[bytes]]


@dataclass(frozen=True)
class Upload:
    """A file to send: its name, its size, and its bytes a chunk at a time."""

    file_name: str
    size: int
    source: Source

    @classmethod
    def of(cls, source: Source, file_name: str | None) -> Upload:
        if isinstance(source, bytes):
            if not file_name:
                raise ValueError("file_name is required when uploading bytes")
            return cls(file_name, len(source), source)
        path = Path(source)
        return cls(file_name or path.name, path.stat().st_size, source)

    def chunks(self) -> Iterator[bytes]:
        if isinstance(self.source, bytes):
            yield self.source
            return
        with open(self.source, "rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                yield chunk

    async def async_chunks(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks():  # a local file: reads do not wait on the network
            yield chunk


def download_url(attachment_or_url: AttachmentFields | str) -> str:
    if isinstance(attachment_or_url, str):
        return attachment_or_url
    return attachment_or_url.download_url


def opened(to: Target) -> tuple[IO[bytes], bool]:
    """The file to write into, and whether this client opened it (and so closes it)."""
    if isinstance(to, (str, os.PathLike)):
        return open(to, "wb"), True
    return to, False


def raise_for_answer(response: httpx.Response) -> None:
    """Nothing for a success; the exception an error answer means otherwise. SIZE_MISMATCH,
    UPLOAD_EXPIRED and ALREADY_UPLOADED are InvalidRequest: the call as made cannot work."""
    if response.is_success:
        return
    try:
        body: Any = response.json()
        error = body["error"]
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        code, message = "INVALID_RESPONSE", f"HTTP {response.status_code}"
    context: dict[str, Any] = {
        "status": response.status_code,
        "request_id": response.headers.get("x-request-id"),
        "errors": [{"message": message, "extensions": {"code": code}}],
    }
    if response.status_code == 429:
        raise RateLimited(code, message, retry_after=retry_after(response), **context)
    kind: type[ApiError] = error_class(code)
    if kind is ApiError and 400 <= response.status_code < 500:
        kind = InvalidRequest
    raise kind(code, message, **context)


def attachment_of(answer: dict[str, Any]) -> AttachmentFields:
    """The attachment a PUT answered (REST's snake_case) as the GraphQL model."""
    return AttachmentFields(
        id=answer["id"],
        file_name=answer["file_name"],
        size_bytes=answer["size_bytes"],
        content_type=answer["content_type"],
        download_url=answer["download_url"],
    )
