"""GET /v1/events/stream: the event log as server-sent events, resumable, filtered, under
the key's scopes (docs/events-stream.md)."""

from __future__ import annotations

from tests.conftest import WorkspaceFixture
from tests.rest.client import RestClient
from tests.rest.streams import Stream, body, sequences


def test_events_arrive_as_they_commit_in_sequence_order(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    with Stream(workspace.server.base_url, workspace.key) as stream:
        assert stream.status == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert stream.headers["x-accel-buffering"] == "no"
        issue = rest.created(subject="Streamed")

        created = stream.take(2)

    assert [m.event for m in created] == ["contact.created", "issue.created"]
    first, second = sequences(created)
    assert second == first + 1
    event = body(created[1])
    assert event["sequence"] == second
    assert event["type"] == "issue.created"
    assert event["workspaceId"] == workspace.id
    assert event["data"]["issue"]["id"] == issue["id"]
    assert set(event) == {
        "id",
        "type",
        "sequence",
        "createdAt",
        "apiVersion",
        "workspaceId",
        "actor",
        "data",
    }
