"""The two steps of an upload, attaching, and looking into the table and the store."""

from __future__ import annotations

from typing import Any

import httpx
import obstore
from sqlalchemy import select

from supportdesk.db.tables import attachments
from tests.conftest import WorkspaceFixture

CREATE_UPLOAD = """
mutation($input: CreateAttachmentUploadInput!) {
  createAttachmentUpload(input: $input) {
    attachment { id fileName sizeBytes contentType downloadUrl }
    uploadUrl expiresAt
    error { code message fields { field code } }
  }
}
"""
CREATE_ISSUE = """
mutation($input: CreateIssueInput!) {
  createIssue(input: $input) {
    issue { id messageCount messages { edges { node { id attachments {
      id fileName sizeBytes contentType downloadUrl } } } } }
    error { code message fields { field code } }
  }
}
"""
REPLY = """
mutation($input: ReplyToIssueInput!) {
  replyToIssue(input: $input) {
    issue { id messageCount }
    message { id attachments { id fileName sizeBytes contentType downloadUrl } }
    error { code message fields { field code } }
  }
}
"""
NOTE = """
mutation($input: AddNoteInput!) {
  addNote(input: $input) {
    message { id visibility attachments { id fileName } }
    error { code message fields { field code } }
  }
}
"""
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(256)) * 40


def create_upload(
    desk: WorkspaceFixture, name: str, size: int, key: str | None = None
) -> dict[str, Any]:
    variables = {"input": {"fileName": name, "sizeBytes": size, "contentType": "text/plain"}}
    return desk.client(key).ok(CREATE_UPLOAD, variables)["createAttachmentUpload"]


def put(url: str, key: str, body: bytes) -> httpx.Response:
    return httpx.put(url, content=body, headers={"Authorization": f"Bearer {key}"}, timeout=60)


def upload(desk: WorkspaceFixture, body: bytes, name: str = "file.bin") -> dict[str, Any]:
    """An uploaded attachment, as the PUT answers it."""
    made = create_upload(desk, name, len(body))
    assert made["error"] is None, made
    sent = put(made["uploadUrl"], desk.key, body)
    assert sent.status_code == 201, sent.text
    return sent.json()


def new_issue(desk: WorkspaceFixture, attachment_ids: list[str] | None = None) -> dict[str, Any]:
    values: dict[str, Any] = {
        "subject": "Screenshot attached",
        "body": "See the file.",
        "requesterEmail": "moss@example.com",
    }
    if attachment_ids is not None:
        values["attachmentIds"] = attachment_ids
    return desk.client().ok(CREATE_ISSUE, {"input": values})["createIssue"]


def rows(desk: WorkspaceFixture) -> list[dict[str, Any]]:
    """The workspace's attachment rows."""

    async def read() -> list[dict[str, Any]]:
        statement = select(attachments).where(attachments.c.workspace_id == desk.id)
        async with desk.server.db.read() as connection:
            return [dict(row._mapping) for row in (await connection.execute(statement)).all()]

    return desk.server.call(read())


def stored_keys(desk: WorkspaceFixture) -> list[str]:
    """Every object the store holds for the workspace, drafts included."""
    store = desk.server.app.state.storage.store
    return sorted(o["path"] for batch in obstore.list(store, prefix=desk.id) for o in batch)
