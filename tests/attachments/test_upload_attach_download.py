"""The whole flow: ask for an upload, PUT the bytes, attach them to a message, see them in
the thread, the REST issue and the events, download them byte for byte, safely."""

from __future__ import annotations

import httpx

from tests.attachments.helpers import (
    NOTE,
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

EVENTS = """
{ events(first: 100, filter: {types: ["issue.created", "message.created"]}) {
    edges { node { type data } } } }
"""


def download(url: str, key: str) -> httpx.Response:
    return httpx.get(url, headers={"Authorization": f"Bearer {key}"}, timeout=60)


def test_an_upload_answers_the_attachment_and_a_url_to_put_its_bytes(
    desk: WorkspaceFixture,
) -> None:
    made = create_upload(desk, "screenshot.png", len(PNG))

    assert made["error"] is None
    attachment = made["attachment"]
    assert attachment["id"].startswith("att_")
    assert attachment["fileName"] == "screenshot.png"
    assert attachment["sizeBytes"] == len(PNG)
    # Not what the client said: nothing is known of the bytes yet.
    assert attachment["contentType"] == "application/octet-stream"
    assert made["uploadUrl"].startswith(desk.server.base_url + "/v1/attachments/")
    assert made["expiresAt"].endswith("Z")

    sent = put(made["uploadUrl"], desk.key, PNG)

    assert sent.status_code == 201, sent.text
    assert sent.json()["content_type"] == "image/png"
    [row] = rows(desk)
    assert row["uploaded_at"] is not None and row["message_id"] is None


def test_a_reply_carries_its_files_and_they_download_byte_for_byte(
    desk: WorkspaceFixture,
) -> None:
    picture = upload(desk, PNG, "Überweisung März.png")
    issue = new_issue(desk)["issue"]

    replied = desk.client().ok(
        REPLY,
        {"input": {"issueId": issue["id"], "body": "Here.", "attachmentIds": [picture["id"]]}},
    )["replyToIssue"]

    assert replied["error"] is None
    [shown] = replied["message"]["attachments"]
    assert shown == {
        "id": picture["id"],
        "fileName": "Überweisung März.png",
        "sizeBytes": len(PNG),
        "contentType": "image/png",
        "downloadUrl": f"{desk.server.base_url}/v1/attachments/{picture['id']}/content",
    }
    fetched = download(shown["downloadUrl"], desk.key)
    assert fetched.status_code == 200
    assert fetched.content == PNG
    assert fetched.headers["content-type"] == "image/png"
    assert fetched.headers["content-disposition"] == (
        'attachment; filename="Uberweisung Marz.png"; '
        "filename*=UTF-8''%C3%9Cberweisung%20M%C3%A4rz.png"
    )
    assert fetched.headers["x-content-type-options"] == "nosniff"
    assert fetched.headers["content-security-policy"] == "sandbox"


def test_html_and_svg_download_as_attachments_never_inline(desk: WorkspaceFixture) -> None:
    html = upload(desk, b"<!DOCTYPE html><html><script>alert(1)</script></html>", "a.html")
    svg = upload(
        desk, b'<svg xmlns="http://www.w3.org/2000/svg"><script>x()</script></svg>', "b.svg"
    )
    new_issue(desk, [html["id"], svg["id"]])

    for attachment, sniffed in ((html, "text/html"), (svg, "image/svg+xml")):
        fetched = download(attachment["download_url"], desk.key)
        assert fetched.status_code == 200
        assert fetched.headers["content-type"].startswith(sniffed)
        assert fetched.headers["content-disposition"].startswith("attachment;")
        assert fetched.headers["x-content-type-options"] == "nosniff"
        assert fetched.headers["content-security-policy"] == "sandbox"


def test_bytes_of_no_known_type_are_octet_stream(desk: WorkspaceFixture) -> None:
    plain = upload(desk, b"just some words", "notes.png")

    assert plain["content_type"] == "application/octet-stream"


def test_the_first_message_and_a_note_take_files_too(desk: WorkspaceFixture) -> None:
    first, second = upload(desk, PNG, "one.png"), upload(desk, b"%PDF-1.4 two", "two.pdf")

    created = new_issue(desk, [first["id"]])
    note = desk.client().ok(
        NOTE,
        {
            "input": {
                "issueId": created["issue"]["id"],
                "body": "Internal.",
                "attachmentIds": [second["id"]],
            }
        },
    )["addNote"]

    [message] = created["issue"]["messages"]["edges"]
    assert [a["id"] for a in message["node"]["attachments"]] == [first["id"]]
    assert note["message"]["attachments"] == [{"id": second["id"], "fileName": "two.pdf"}]
    assert {row["message_id"] for row in rows(desk)} == {
        message["node"]["id"],
        note["message"]["id"],
    }


def test_events_and_the_rest_issue_list_the_files(desk: WorkspaceFixture) -> None:
    first, second = upload(desk, PNG, "one.png"), upload(desk, b"hello", "two.txt")
    issue = new_issue(desk, [first["id"]])["issue"]
    desk.client().ok(
        REPLY, {"input": {"issueId": issue["id"], "body": "More.", "attachmentIds": [second["id"]]}}
    )

    events = desk.client().ok(EVENTS)["events"]["edges"]
    rest = httpx.get(
        f"{desk.server.base_url}/v1/issues/{issue['id']}",
        headers={"Authorization": f"Bearer {desk.key}"},
    ).json()

    listed = {e["node"]["type"]: e["node"]["data"]["message"]["attachments"] for e in events}
    assert listed == {
        "issue.created": [
            {
                "id": first["id"],
                "fileName": "one.png",
                "sizeBytes": len(PNG),
                "contentType": "image/png",
            }
        ],
        "message.created": [
            {
                "id": second["id"],
                "fileName": "two.txt",
                "sizeBytes": 5,
                "contentType": "application/octet-stream",
            }
        ],
    }
    assert [m["attachments"] for m in rest["messages"]] == [[first], [second]]


def test_identical_bytes_are_stored_once(desk: WorkspaceFixture) -> None:
    one, two = upload(desk, PNG, "a.png"), upload(desk, PNG, "b.png")
    new_issue(desk, [one["id"], two["id"]])

    assert len(stored_keys(desk)) == 1
    assert len({row["storage_key"] for row in rows(desk)}) == 1
    assert download(two["download_url"], desk.key).content == PNG
