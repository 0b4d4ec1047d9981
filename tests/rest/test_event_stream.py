"""GET /v1/events/stream: the event log as server-sent events, resumable, filtered, under
the key's scopes (docs/events-stream.md)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from sqlalchemy import delete

from supportdesk.db.tables import events
from supportdesk.domain.events.tail import last_sequences
from tests import factories
from tests.client import GraphQLClient
from tests.conftest import BACKENDS, WorkspaceFixture, make_workspace
from tests.rest.client import RestClient
from tests.rest.streams import Stream, body, sequences
from tests.servers import RunningServer


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


def test_a_reconnect_with_last_event_id_misses_nothing_and_repeats_nothing(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    base = workspace.server.base_url
    with Stream(base, workspace.key) as stream:
        rest.created(subject="Before the cut")
        seen = stream.take(2)
    # While no stream is open: two more issues.
    rest.created(subject="While away")
    rest.created(subject="Also while away")

    last = seen[-1].id
    with Stream(base, workspace.key, headers={"Last-Event-ID": last}) as resumed:
        caught_up = resumed.take(2)  # the requester is known now: no contact.created
        rest.created(subject="Live again")
        live = resumed.take(1)
        assert resumed.nothing_within(0.3)

    got = sequences(seen) + sequences(caught_up) + sequences(live)
    assert got == list(range(got[0], got[0] + 5))
    subjects = [
        body(m)["data"]["issue"]["subject"] for m in caught_up + live if m.event == "issue.created"
    ]
    assert subjects == ["While away", "Also while away", "Live again"]


def test_after_sends_the_kept_events_after_that_sequence_first(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    start = last_sequence(workspace)
    rest.created(subject="One")  # contact.created, issue.created
    rest.created(subject="Two")  # issue.created
    rest.created(subject="Three")  # issue.created
    params = {"after": str(start + 2)}
    with Stream(workspace.server.base_url, workspace.key, params=params) as stream:
        got = stream.take(2)
        assert stream.nothing_within(0.3)
    assert sequences(got) == [start + 3, start + 4]


def test_last_event_id_wins_over_after(workspace: WorkspaceFixture, rest: RestClient) -> None:
    start = last_sequence(workspace)
    for subject in ("One", "Two", "Three"):
        rest.created(subject=subject)
    headers = {"Last-Event-ID": str(start + 3)}
    with Stream(
        workspace.server.base_url, workspace.key, params={"after": "0"}, headers=headers
    ) as stream:
        assert sequences(stream.take(1)) == [start + 4]


def test_an_after_older_than_retention_first_sends_a_reset(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    start = last_sequence(workspace)
    for subject in ("One", "Two", "Three"):
        rest.created(subject=subject)  # start + 1 to start + 4
    remove_events_up_to(workspace, start + 2)  # as retention would

    with Stream(workspace.server.base_url, workspace.key, params={"after": "1"}) as stream:
        reset, *kept = stream.take(3)

    assert reset.event == "reset"
    assert reset.id == ""
    assert body(reset) == {"oldestSequence": start + 3}
    assert sequences(kept) == [start + 3, start + 4]


def test_types_keeps_only_the_events_of_those_types(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    params = {"types": "issue.created,message.created"}
    with Stream(workspace.server.base_url, workspace.key, params=params) as stream:
        rest.created(subject="Filtered")
        got = stream.next()
        assert stream.nothing_within(0.3)
    assert got.event == "issue.created"


def test_a_key_sees_only_the_events_it_may_read_and_no_more_of_people(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    issues_only = workspace.create_key(["issues:read"])
    contacts_only = workspace.create_key(["contacts:read"])
    base = workspace.server.base_url
    with Stream(base, issues_only) as issues, Stream(base, contacts_only) as contacts:
        rest.created(subject="Who sees what")
        seen_by_issues = issues.next()
        seen_by_contacts = contacts.next()
        assert issues.nothing_within(0.3) and contacts.nothing_within(0.1)

    assert seen_by_issues.event == "issue.created"
    requester = body(seen_by_issues)["data"]["issue"]["requester"]
    assert set(requester) == {"id"}  # no e-mail or name without contacts:read
    assert seen_by_contacts.event == "contact.created"
    assert body(seen_by_contacts)["data"]["contact"]["email"] == "moss@example.com"


def test_a_key_without_an_event_scope_is_refused(workspace: WorkspaceFixture) -> None:
    key = workspace.create_key(["issues:write"])
    stream = Stream(workspace.server.base_url, key)
    assert stream.status == 403
    assert stream.body["error"]["code"] == "FORBIDDEN"


def test_the_eleventh_stream_of_a_key_is_refused(workspace: WorkspaceFixture) -> None:
    key = workspace.create_key(["issues:read"])
    base = workspace.server.base_url
    streams = [Stream(base, key) for _ in range(10)]
    try:
        assert [s.status for s in streams] == [200] * 10
        eleventh = Stream(base, key)
        assert eleventh.status == 429
        assert eleventh.body["error"]["code"] == "LIMIT_REACHED"
        assert eleventh.body["error"]["fields"] == []
        with Stream(base, workspace.key) as other:  # another key is not held back
            assert other.status == 200
    finally:
        for stream in streams:
            stream.close()
    # Closed streams give their places back.
    deadline = time.monotonic() + 5
    while (again := Stream(base, key)).status != 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    again.close()
    assert again.status == 200


def test_a_revoked_keys_stream_ends_within_five_seconds(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    owner = factories.machine_user(api, "Streamer")["id"]
    created = factories.api_key(api, owner, ["issues:read"])
    with Stream(workspace.server.base_url, created["secret"]) as stream:
        assert stream.status == 200
        api.ok(factories.REVOKE_API_KEY, {"id": created["apiKey"]["id"]})
        revoked_at = time.monotonic()
        assert stream.ends_within(5)
    assert time.monotonic() - revoked_at < 5


@pytest.mark.parametrize(
    ("params", "headers", "field"),
    [
        ({"after": "-1"}, {}, "after"),
        ({"after": "ten"}, {}, "after"),
        ({"after": "1.5"}, {}, "after"),
        ({"after": "9" * 40}, {}, "after"),
        ({}, {"Last-Event-ID": "abc"}, "Last-Event-ID"),
        ({"types": "issue.created,issue.exploded"}, {}, "types"),
        ({"types": ","}, {}, "types"),
        ({"types": ""}, {}, "types"),
        # The header wins over `after`, but a bad `after` is refused all the same.
        ({"after": "-1"}, {"Last-Event-ID": "0"}, "after"),
    ],
)
def test_a_bad_parameter_is_refused_with_400(
    workspace: WorkspaceFixture, params: dict[str, str], headers: dict[str, str], field: str
) -> None:
    stream = Stream(workspace.server.base_url, workspace.key, params=params, headers=headers)
    assert stream.status == 400
    assert stream.body["error"]["code"] == "VALIDATION_FAILED"
    assert stream.body["error"]["fields"] == [{"field": field, "code": "INVALID"}]


def test_an_after_past_the_last_event_is_refused(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    last = last_sequence(workspace)
    stream = Stream(workspace.server.base_url, workspace.key, params={"after": str(last + 1)})
    assert stream.status == 400
    assert stream.body["error"]["code"] == "BAD_USER_INPUT"
    assert stream.body["error"]["last_sequence"] == last


def test_a_quiet_stream_gets_keep_alive_comments(keep_alive_server: RunningServer) -> None:
    workspace = make_workspace(keep_alive_server)
    with Stream(keep_alive_server.base_url, workspace.key, raw=True) as stream:
        started = time.monotonic()
        lines = [stream.next(timeout=3) for _ in range(4)]
    assert lines == [": keep-alive", "", ": keep-alive", ""]
    assert 0.4 < time.monotonic() - started < 3


@pytest.fixture(scope="module", params=BACKENDS)
def keep_alive_server(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    url = request.getfixturevalue(f"{request.param}_url")
    running = RunningServer(request.param, url, event_stream_keepalive_seconds=0.3).start()
    yield running
    running.stop()


def last_sequence(workspace: WorkspaceFixture) -> int:
    found = workspace.server.call(last_sequences(workspace.server.db, [workspace.id]))
    return found[workspace.id]


def remove_events_up_to(workspace: WorkspaceFixture, sequence: int) -> None:
    async def remove() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.execute(
                delete(events).where(
                    events.c.workspace_id == workspace.id, events.c.sequence <= sequence
                )
            )

    workspace.server.call(remove())
