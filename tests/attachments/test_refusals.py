"""Every wrong step gets a clear error in the API's shape, never a 500, and leaves
nothing stored or half-written: the table and the store are looked at after each."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import update

from supportdesk.db.tables import attachments
from tests.attachments.conftest import SMALL_LIMIT
from tests.attachments.helpers import (
    CREATE_UPLOAD,
    PNG,
    REPLY,
    create_upload,
    new_issue,
    put,
    rows,
    stored_keys,
    upload,
)
from tests.conftest import WorkspaceFixture


def nothing_kept(desk: WorkspaceFixture) -> None:
    """Uploads waiting as before: no bytes recorded, no object stored."""
    assert all(row["uploaded_at"] is None and row["sha256"] is None for row in rows(desk))
    assert stored_keys(desk) == []


def test_fewer_bytes_than_declared_are_refused_and_not_kept(desk: WorkspaceFixture) -> None:
    made = create_upload(desk, "short.png", len(PNG))

    sent = put(made["uploadUrl"], desk.key, PNG[:-1])

    assert sent.status_code == 400
    assert sent.json()["error"]["code"] == "SIZE_MISMATCH"
    assert "nothing was kept" in sent.json()["error"]["message"]
    nothing_kept(desk)
    # The upload still waits: the right bytes are taken after.
    assert put(made["uploadUrl"], desk.key, PNG).status_code == 201


def test_more_bytes_than_declared_are_refused_and_not_kept(desk: WorkspaceFixture) -> None:
    made = create_upload(desk, "long.bin", 1000)

    sent = put(made["uploadUrl"], desk.key, b"x" * 2 * 1024 * 1024)

    assert sent.status_code == 400
    assert sent.json()["error"]["code"] == "SIZE_MISMATCH"
    nothing_kept(desk)


def test_a_declared_size_over_the_limit_is_refused(desk: WorkspaceFixture) -> None:
    variables = {"input": {"fileName": "huge.iso", "sizeBytes": SMALL_LIMIT + 1}}

    answer = desk.client().ok(CREATE_UPLOAD, variables)["createAttachmentUpload"]

    assert answer["attachment"] is None and answer["uploadUrl"] is None
    assert answer["error"]["code"] == "VALIDATION_FAILED"
    assert answer["error"]["fields"] == [{"field": "sizeBytes", "code": "TOO_LARGE"}]
    assert rows(desk) == []


def test_names_and_sizes_are_checked(desk: WorkspaceFixture) -> None:
    answer = desk.client().ok(
        CREATE_UPLOAD, {"input": {"fileName": " ", "sizeBytes": 0, "contentType": "nonsense"}}
    )["createAttachmentUpload"]

    assert answer["error"]["fields"] == [
        {"field": "fileName", "code": "REQUIRED"},
        {"field": "sizeBytes", "code": "INVALID"},
        {"field": "contentType", "code": "INVALID"},
    ]


@pytest.mark.parametrize(
    "name",
    ["invoice\u202egpj.exe", "a\u2067b.txt", "tab\there.txt", "a\u0085b.txt", "a\u2028b.txt"],
)
def test_a_name_with_control_or_reordering_characters_is_refused(
    desk: WorkspaceFixture, name: str
) -> None:
    answer = desk.client().ok(
        CREATE_UPLOAD, {"input": {"fileName": name, "sizeBytes": 5, "contentType": "text/plain"}}
    )["createAttachmentUpload"]

    assert answer["error"]["fields"] == [{"field": "fileName", "code": "INVALID"}]
    assert rows(desk) == []


def test_a_folder_before_the_name_is_dropped(desk: WorkspaceFixture) -> None:
    made = create_upload(desk, "../../etc/passwd", 5)

    assert made["attachment"]["fileName"] == "passwd"


def test_an_expired_upload_url_is_refused(desk: WorkspaceFixture) -> None:
    made = create_upload(desk, "late.png", len(PNG))

    async def expire() -> None:
        async with desk.server.db.transaction() as connection:
            await connection.execute(
                update(attachments)
                .where(attachments.c.workspace_id == desk.id)
                .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
            )

    desk.server.call(expire())
    sent = put(made["uploadUrl"], desk.key, PNG)

    assert sent.status_code == 410
    assert sent.json()["error"]["code"] == "UPLOAD_EXPIRED"
    nothing_kept(desk)


def test_bytes_are_sent_once(desk: WorkspaceFixture) -> None:
    made = create_upload(desk, "twice.png", len(PNG))
    assert put(made["uploadUrl"], desk.key, PNG).status_code == 201

    again = put(made["uploadUrl"], desk.key, PNG)

    assert again.status_code == 409
    assert again.json()["error"]["code"] == "ALREADY_UPLOADED"


def test_another_workspaces_upload_url_is_not_found(
    desk: WorkspaceFixture, other_desk: WorkspaceFixture
) -> None:
    made = create_upload(desk, "mine.png", len(PNG))

    sent = put(made["uploadUrl"], other_desk.key, PNG)

    assert sent.status_code == 404
    assert sent.json()["error"]["code"] == "NOT_FOUND"
    nothing_kept(desk)
    assert stored_keys(other_desk) == []


def test_uploading_needs_a_scope_that_writes_messages(desk: WorkspaceFixture) -> None:
    reader = desk.create_key(["issues:read"])
    replier = desk.create_key(["thread:reply"])

    refused = desk.client(reader)(CREATE_UPLOAD, {"input": {"fileName": "a", "sizeBytes": 1}})
    made = create_upload(desk, "a.txt", 1, key=replier)

    assert refused.error_at("createAttachmentUpload")["extensions"]["code"] == "FORBIDDEN"
    assert put(made["uploadUrl"], reader, b"a").status_code == 403
    assert put(made["uploadUrl"], replier, b"a").status_code == 201


def test_only_the_key_that_asked_for_the_upload_sends_its_bytes(desk: WorkspaceFixture) -> None:
    first = desk.create_key(["issues:write"])
    second = desk.create_key(["issues:write"])
    made = create_upload(desk, "mine.txt", 1, key=first)

    refused = put(made["uploadUrl"], second, b"a")

    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "FORBIDDEN"
    nothing_kept(desk)
    assert put(made["uploadUrl"], first, b"a").status_code == 201


def reply(desk: WorkspaceFixture, issue_id: str, ids: list[str]) -> dict:
    variables = {"input": {"issueId": issue_id, "body": "Files.", "attachmentIds": ids}}
    return desk.client().ok(REPLY, variables)["replyToIssue"]


def test_ids_that_cannot_be_attached_fail_the_message_each_named(
    desk: WorkspaceFixture, other_desk: WorkspaceFixture
) -> None:
    issue = new_issue(desk)["issue"]
    taken = upload(desk, PNG, "taken.png")
    reply(desk, issue["id"], [taken["id"]])
    waiting = create_upload(desk, "waiting.png", 10)["attachment"]
    foreign = upload(other_desk, PNG, "foreign.png")
    fine = upload(desk, b"fine", "fine.txt")

    answer = reply(
        desk, issue["id"], [fine["id"], taken["id"], waiting["id"], foreign["id"], "att_nonsense"]
    )

    assert answer["message"] is None and answer["issue"] is None
    assert answer["error"]["code"] == "VALIDATION_FAILED"
    assert answer["error"]["fields"] == [
        {"field": "attachmentIds", "code": "ALREADY_ATTACHED"},
        {"field": "attachmentIds", "code": "NOT_UPLOADED"},
        {"field": "attachmentIds", "code": "UNKNOWN"},
        {"field": "attachmentIds", "code": "UNKNOWN"},
    ]
    assert taken["id"] in answer["error"]["message"]
    # The message was not written, and the good upload is still free.
    assert new_issue(desk)["issue"]["messageCount"] == 1
    state = {row["id"]: row["message_id"] for row in rows(desk)}
    assert state[fine["id"]] is None
    assert [row["message_id"] for row in rows(other_desk)] == [None]


def test_a_message_takes_at_most_25_files(desk: WorkspaceFixture) -> None:
    issue = new_issue(desk)["issue"]
    ids = [upload(desk, f"file {n}".encode(), f"{n}.txt")["id"] for n in range(26)]

    answer = reply(desk, issue["id"], ids)

    assert answer["error"]["fields"] == [{"field": "attachmentIds", "code": "TOO_MANY"}]
    assert all(row["message_id"] is None for row in rows(desk))
    assert reply(desk, issue["id"], ids[:25])["error"] is None


def test_a_download_with_another_workspaces_key_is_not_found(
    desk: WorkspaceFixture, other_desk: WorkspaceFixture
) -> None:
    picture = upload(desk, PNG, "mine.png")
    new_issue(desk, [picture["id"]])

    fetched = httpx.get(
        picture["download_url"], headers={"Authorization": f"Bearer {other_desk.key}"}
    )
    by_writer = httpx.get(
        picture["download_url"],
        headers={"Authorization": f"Bearer {desk.create_key(['issues:write'])}"},
    )

    assert fetched.status_code == 404
    assert fetched.json()["error"]["code"] == "NOT_FOUND"
    assert PNG not in fetched.content
    assert by_writer.status_code == 403


def test_an_upload_whose_bytes_never_came_is_not_found(desk: WorkspaceFixture) -> None:
    made = create_upload(desk, "never.png", 10)

    fetched = httpx.get(
        made["attachment"]["downloadUrl"], headers={"Authorization": f"Bearer {desk.key}"}
    )

    assert fetched.status_code == 404
