"""The Python client's attachment helpers, sync and async, against a real server."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from supportdesk_client import AsyncClient, Client, MutationError, NotFound
from tests.attachments.helpers import PNG, new_issue, rows
from tests.conftest import WorkspaceFixture


def test_a_path_uploads_attaches_and_downloads(desk: WorkspaceFixture, tmp_path: Path) -> None:
    source = tmp_path / "screenshot.png"
    source.write_bytes(PNG)
    issue = new_issue(desk)["issue"]
    with Client(desk.server.base_url, desk.key) as client:
        attachment = client.upload_attachment(source)
        client.issues.reply(issue["id"], "Here.", attachment_ids=[attachment.id])
        written = client.download_attachment(attachment, to=tmp_path / "copy.png")
        into = io.BytesIO()
        client.download_attachment(attachment.download_url, to=into)

    assert attachment.file_name == "screenshot.png"
    assert attachment.content_type == "image/png"
    assert written == len(PNG)
    assert (tmp_path / "copy.png").read_bytes() == PNG == into.getvalue()
    assert [row["message_id"] is not None for row in rows(desk)] == [True]


def test_the_async_client_does_the_same_with_bytes(desk: WorkspaceFixture) -> None:
    async def go() -> tuple[str, bytes]:
        async with AsyncClient(desk.server.base_url, desk.key) as client:
            attachment = await client.upload_attachment(b"%PDF-1.4 x", "report.pdf")
            await client.issues.create(
                subject="The report",
                body="Attached.",
                requester_email="ada@example.com",
                attachment_ids=[attachment.id],
            )
            into = io.BytesIO()
            await client.download_attachment(attachment, to=into)
            return attachment.content_type, into.getvalue()

    assert asyncio.run(go()) == ("application/pdf", b"%PDF-1.4 x")
    assert [row["message_id"] is not None for row in rows(desk)] == [True]


def test_a_new_issue_and_a_reply_take_uploaded_files(desk: WorkspaceFixture) -> None:
    with Client(desk.server.base_url, desk.key) as client:
        first = client.upload_attachment(b"first", "first.txt")
        issue = client.issues.create(
            subject="Two files",
            body="One here.",
            requester_email="ada@example.com",
            attachment_ids=[first.id],
        )
        second = client.upload_attachment(b"second", "second.txt")
        client.issues.reply(issue.id, "One more.", attachment_ids=[second.id])
        thread = list(client.issues.messages(issue.id))

    assert [[a.file_name for a in m.attachments] for m in thread] == [
        ["first.txt"],
        ["second.txt"],
    ]


def test_refusals_are_the_clients_exceptions(
    desk: WorkspaceFixture, other_desk: WorkspaceFixture
) -> None:
    with Client(desk.server.base_url, desk.key) as client:
        with pytest.raises(MutationError) as too_large:
            client.upload_attachment(b"x" * (4 * 1024 * 1024), "big.bin")
        with pytest.raises(ValueError, match="file_name"):
            client.upload_attachment(b"x")
        attachment = client.upload_attachment(b"mine", "mine.txt")
    stranger = Client(desk.server.base_url, other_desk.key)
    with stranger, pytest.raises(NotFound):
        stranger.download_attachment(attachment, to=io.BytesIO())

    assert too_large.value.fields == {"sizeBytes": "TOO_LARGE"}
