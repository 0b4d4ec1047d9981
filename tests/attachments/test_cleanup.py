"""Uploads no message took within a day go, with their bytes, when the retention job runs;
attached files and bytes another attachment keeps stay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from supportdesk.db.tables import attachments
from supportdesk.domain.attachments import remove_unattached
from tests.attachments.helpers import PNG, create_upload, new_issue, rows, stored_keys, upload
from tests.conftest import WorkspaceFixture


def made_ago(desk: WorkspaceFixture, attachment_id: str, hours: float) -> None:
    async def rewrite() -> None:
        async with desk.server.db.transaction() as connection:
            await connection.execute(
                update(attachments)
                .where(attachments.c.workspace_id == desk.id, attachments.c.id == attachment_id)
                .values(created_at=datetime.now(UTC) - timedelta(hours=hours))
            )

    desk.server.call(rewrite())


def run_retention(desk: WorkspaceFixture) -> int:
    server = desk.server
    return server.call(remove_unattached(server.db, server.app.state.storage, datetime.now(UTC)))


def test_day_old_unattached_uploads_go_with_their_bytes(desk: WorkspaceFixture) -> None:
    forgotten = upload(desk, b"forgotten bytes", "old.txt")
    never_sent = create_upload(desk, "never.txt", 5)["attachment"]
    young = upload(desk, b"young bytes", "young.txt")
    attached = upload(desk, PNG, "kept.png")
    new_issue(desk, [attached["id"]])
    for attachment_id in (forgotten["id"], never_sent["id"], attached["id"]):
        made_ago(desk, attachment_id, 25)
    made_ago(desk, young["id"], 23)
    assert len(stored_keys(desk)) == 3

    removed = run_retention(desk)

    assert removed >= 2  # other tests' workspaces may have their own
    assert {row["id"] for row in rows(desk)} == {young["id"], attached["id"]}
    assert len(stored_keys(desk)) == 2
    assert sorted(stored_keys(desk)) == sorted(row["storage_key"] for row in rows(desk))


def test_bytes_another_attachment_keeps_stay(desk: WorkspaceFixture) -> None:
    forgotten = upload(desk, PNG, "copy.png")
    attached = upload(desk, PNG, "original.png")
    new_issue(desk, [attached["id"]])
    made_ago(desk, forgotten["id"], 25)

    run_retention(desk)

    assert [row["id"] for row in rows(desk)] == [attached["id"]]
    assert stored_keys(desk) == [rows(desk)[0]["storage_key"]]
