"""GET /inbox/live: the workspace's events for the inbox's pages, with the session cookie
instead of a key (docs/inbox-live.md)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from tests.conftest import ADMIN_PASSWORD, TEST_SECRET_KEY, WorkspaceFixture
from tests.graphql.issues.helpers import new_issue, reply
from tests.graphql.mailboxes.helpers import new_mailbox, unique_address
from tests.rest.streams import Stream, body
from tests.servers import RunningServer
from tests.web.settings_client import SettingsClient, hidden_fields

PATH = "/inbox/live"
COOKIE = "supportdesk_session"

MEMBERS = "query { members(first: 50) { edges { node { id email } } } }"
REMOVE = "mutation($id: ID!) { removeMember(id: $id) { member { id } error { code } } }"
DEMOTE = """
mutation($input: UpdateMemberInput!) {
  updateMember(input: $input) { member { role } error { code } }
}
"""


def logged_in(workspace: WorkspaceFixture, email: str) -> SettingsClient:
    return SettingsClient(workspace.server.base_url).logged_in(email, ADMIN_PASSWORD)


def live(member: SettingsClient, raw: bool = False, **headers: str) -> Stream:
    """The member's stream, as an EventSource opens it: the session cookie, no key;
    `raw`, its lines as sent."""
    cookie = member.http.cookies.get(COOKIE) or ""
    return Stream(
        str(member.http.base_url),
        None,
        path=PATH,
        headers={"Cookie": f"{COOKIE}={cookie}", **headers},
        raw=raw,
    )


def until(stream: Stream, kind: str, timeout: float = 5) -> list[Any]:
    """The messages up to the first of type `kind`, that one included."""
    deadline = time.monotonic() + timeout
    messages = []
    while not messages or messages[-1].event != kind:
        messages.append(stream.next(max(0.01, deadline - time.monotonic())))
    return messages


def next_of(stream: Stream, kind: str, timeout: float = 5) -> Any:
    return until(stream, kind, timeout)[-1]


def member_id(workspace: WorkspaceFixture, email: str) -> str:
    edges = workspace.client().ok(MEMBERS)["members"]["edges"]
    return next(edge["node"]["id"] for edge in edges if edge["node"]["email"] == email)


def test_an_issue_created_over_graphql_reaches_an_agents_stream_within_2_seconds(
    workspace: WorkspaceFixture,
) -> None:
    agent = logged_in(workspace, workspace.add_person("agent"))
    with live(agent) as stream:
        assert stream.status == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert stream.headers["x-accel-buffering"] == "no"
        issue = new_issue(workspace.client(), subject="Seen live")
        created = next_of(stream, "issue.created")
        arrived = time.time()

    event = body(created)
    assert event["data"]["issue"]["id"] == issue["id"]
    assert int(created.id) == event["sequence"]
    committed = datetime.fromisoformat(event["createdAt"].replace("Z", "+00:00"))
    assert arrived - committed.timestamp() < 2.0


def test_an_events_data_holds_no_html_yet_reads_back_as_sent(
    workspace: WorkspaceFixture,
) -> None:
    # Given an agent's stream, read line by line as the server writes it
    agent = logged_in(workspace, workspace.add_person("agent"))
    subject = "Printer <img src=x onerror=alert(1)> & fax"
    with live(agent, raw=True) as stream:
        # When an issue with markup in its subject is created
        new_issue(workspace.client(), subject=subject)
        lines = [stream.next()]
        while lines[-1] != "event: issue.created":
            lines.append(stream.next())
        lines.append(stream.next())

    # Then no data line holds a raw <, > or &, yet the JSON decodes to the subject as
    # written (htmx's SSE extension swaps the raw data in when inbox_live.js is missing)
    data = [line.removeprefix("data: ") for line in lines if line.startswith("data: ")]
    assert data and not [line for line in data if set(line) & set("<>&")]
    assert "\\u003cimg src=x onerror=alert(1)\\u003e \\u0026 fax" in data[-1]
    assert json.loads(data[-1])["data"]["issue"]["subject"] == subject


def test_a_reconnect_with_last_event_id_catches_up_by_sequence(
    workspace: WorkspaceFixture,
) -> None:
    agent = logged_in(workspace, workspace.add_person("agent"))
    api = workspace.client()
    with live(agent) as stream:
        new_issue(api, subject="Before the cut")
        last = next_of(stream, "issue.created").id
    new_issue(api, subject="While away")

    with live(agent, **{"Last-Event-ID": last}) as resumed:
        caught_up = next_of(resumed, "issue.created")
        new_issue(api, subject="Live again")
        again = next_of(resumed, "issue.created")

    assert body(caught_up)["data"]["issue"]["subject"] == "While away"
    assert body(again)["data"]["issue"]["subject"] == "Live again"
    assert int(caught_up.id) > int(last)


def test_after_in_the_address_resumes_like_last_event_id(workspace: WorkspaceFixture) -> None:
    agent = logged_in(workspace, workspace.add_person("agent"))
    page = agent.get("/inbox/")
    assert page.status_code == 200
    with live(agent) as stream:
        new_issue(workspace.client(), subject="First")
        first = next_of(stream, "issue.created")
    new_issue(workspace.client(), subject="Second")

    cookie = agent.http.cookies.get(COOKIE) or ""
    with Stream(
        workspace.server.base_url,
        None,
        path=f"{PATH}?after={first.id}",
        headers={"Cookie": f"{COOKIE}={cookie}"},
    ) as resumed:
        assert body(next_of(resumed, "issue.created"))["data"]["issue"]["subject"] == "Second"


def test_without_a_session_the_stream_sends_to_the_login(workspace: WorkspaceFixture) -> None:
    with Stream(workspace.server.base_url, None, path=PATH) as stream:
        assert stream.status == 303
        assert stream.headers["location"] == "/login"
    # A key is no session: the key's stream is /v1/events/stream.
    with Stream(workspace.server.base_url, workspace.key, path=PATH) as keyed:
        assert keyed.status == 303


def test_a_bad_last_event_id_is_refused_with_a_clear_message(
    workspace: WorkspaceFixture,
) -> None:
    agent = logged_in(workspace, workspace.add_person("agent"))
    with live(agent, **{"Last-Event-ID": "yesterday"}) as stream:
        assert stream.status == 400
        assert "Last-Event-ID" in stream.body


def test_a_position_past_the_log_follows_from_now(workspace: WorkspaceFixture) -> None:
    agent = logged_in(workspace, workspace.add_person("agent"))
    with live(agent, **{"Last-Event-ID": "999999"}) as stream:
        assert stream.status == 200
        new_issue(workspace.client(), subject="After a restore")
        assert body(next_of(stream, "issue.created"))["data"]["issue"]["subject"] == (
            "After a restore"
        )


def test_the_stream_ends_within_5_seconds_of_logging_out(workspace: WorkspaceFixture) -> None:
    agent = logged_in(workspace, workspace.add_person("agent"))
    with live(agent) as stream:
        assert stream.status == 200
        logout = agent.post("/logout", hidden_fields(agent.get("/inbox/").text))
        assert logout.status_code == 303
        assert stream.ends_within(5)


def test_the_stream_of_a_removed_member_ends_within_5_seconds(
    workspace: WorkspaceFixture,
) -> None:
    email = workspace.add_person("agent")
    agent = logged_in(workspace, email)
    with live(agent) as stream, live(logged_in(workspace, workspace.admin_email)) as admins:
        assert stream.status == 200
        removed = workspace.client().ok(REMOVE, {"id": member_id(workspace, email)})
        assert removed["removeMember"]["error"] is None
        assert stream.ends_within(5)
        # Another member's stream goes on, and tells of the removal.
        assert body(next_of(admins, "member.removed"))["data"]["member"]["email"] == email
    assert live(agent).status == 303


def test_the_stream_of_an_admin_made_an_agent_ends_within_5_seconds(
    workspace: WorkspaceFixture,
) -> None:
    # Its events were chosen for an admin (Settings' too): it ends, and the page's
    # reconnection gets an agent's stream.
    email = workspace.add_person("admin")
    admin = logged_in(workspace, email)
    with live(admin) as stream:
        assert stream.status == 200
        changed = workspace.client().ok(
            DEMOTE, {"input": {"id": member_id(workspace, email), "role": "agent"}}
        )
        assert changed["updateMember"]["error"] is None
        assert stream.ends_within(5)
    with live(admin) as again:
        assert again.status == 200
        workspace.create_key(["issues:read"], name="made after the demotion")
        new_issue(workspace.client(), subject="After the demotion")
        seen = until(again, "issue.created")
    assert "api_key.created" not in [message.event for message in seen]


def test_an_agent_sees_no_settings_events_and_an_admin_does(
    workspace: WorkspaceFixture,
) -> None:
    agent = logged_in(workspace, workspace.add_person("agent"))
    admin = logged_in(workspace, workspace.admin_email)
    with live(agent) as agents, live(admin) as admins:
        workspace.create_key(["issues:read"], name="made while streaming")
        new_issue(workspace.client(), subject="After the key")
        assert next_of(admins, "api_key.created")
        seen = until(agents, "issue.created")

    assert "api_key.created" not in [message.event for message in seen]
    assert body(seen[-1])["data"]["issue"]["subject"] == "After the key"


def test_an_agent_sees_no_mailbox_events_which_only_settings_shows(
    workspace: WorkspaceFixture,
) -> None:
    # Settings → Email answers an agent 403: its mailboxes' events (address, IMAP user
    # and host, token prefix) stay off the agent's stream too.
    agent = logged_in(workspace, workspace.add_person("agent"))
    admin = logged_in(workspace, workspace.admin_email)
    with live(agent) as agents, live(admin) as admins:
        new_mailbox(workspace.client(), address=unique_address())
        new_issue(workspace.client(), subject="After the mailbox")
        assert next_of(admins, "mailbox.created")
        seen = until(agents, "issue.created")

    assert "mailbox.created" not in [message.event for message in seen]


def test_a_member_holds_at_most_10_open_streams(workspace: WorkspaceFixture) -> None:
    agent = logged_in(workspace, workspace.add_person("agent"))
    streams = [live(agent) for _ in range(10)]
    try:
        assert [stream.status for stream in streams] == [200] * 10
        refused = live(agent)
        assert refused.status == 429
        assert "Too many live pages" in refused.body
        # Another member is counted apart.
        with live(logged_in(workspace, workspace.admin_email)) as admins:
            assert admins.status == 200
        streams.pop().close()
        deadline = time.monotonic() + 5
        while (again := live(agent)).status == 429 and time.monotonic() < deadline:
            time.sleep(0.05)  # the server notices the closed connection
        streams.append(again)
        assert again.status == 200
    finally:
        for stream in streams:
            stream.close()


@pytest.fixture(scope="module")
def quick_keep_alive(server: RunningServer) -> Iterator[RunningServer]:
    """Another server process on the same database, sending keep-alives every 0.3 s."""
    running = RunningServer(
        server.backend,
        server.database_url,
        failed_auth_per_minute=1_000_000,
        secret_key=TEST_SECRET_KEY,
        event_stream_keepalive_seconds=0.3,
    ).start()
    yield running
    running.stop()


def test_a_quiet_stream_sends_keep_alives(
    workspace: WorkspaceFixture, quick_keep_alive: RunningServer
) -> None:
    agent = logged_in(workspace, workspace.add_person("agent"))
    cookie = agent.http.cookies.get(COOKIE) or ""
    # The login of one process holds in another: the session is in the database.
    with Stream(
        quick_keep_alive.base_url,
        None,
        path=PATH,
        headers={"Cookie": f"{COOKIE}={cookie}"},
        raw=True,
    ) as stream:
        assert stream.status == 200
        lines = [stream.next(2) for _ in range(4)]

    assert [line for line in lines if line] == [": keep-alive", ": keep-alive"]


def test_an_issue_pages_refresh_marks_what_it_had_not_shown_and_moves_seen_up_to(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    issue = new_issue(api, subject="Refreshed live")
    agent = logged_in(workspace, workspace.add_person("agent"))
    shown = agent.get(f"/inbox/issues/{issue['ticketNumber']}").text
    seen = re.search(r'name="seen_up_to" value="([^"]+)"', shown)
    assert seen is not None
    answer = reply(api, issue["id"], "Arrived while the page was open")

    refreshed = agent.get(
        f"/inbox/issues/{issue['ticketNumber']}/live", params={"seen_up_to": seen.group(1)}
    )

    assert refreshed.status_code == 200
    newest = answer["message"]["id"]
    assert re.search(rf'<li id="{newest}" class="[^"]*msg-new', refreshed.text)
    assert f'name="seen_up_to" value="{newest}" id="seen-up-to" hx-swap-oob="true"' in (
        refreshed.text
    )
    assert 'id="issue-controls" aria-label="Details" hx-swap-oob="true"' in refreshed.text
    assert agent.get("/inbox/issues/999999/live").status_code == 404
    assert agent.get(f"/inbox/issues/{2**40}/live").status_code == 404


def test_the_views_counts_answer_alone_for_their_live_refresh(
    workspace: WorkspaceFixture,
) -> None:
    new_issue(workspace.client(), subject="Counted")
    agent = logged_in(workspace, workspace.add_person("agent"))

    counts = agent.get("/inbox/", params={"view": "open", "partial": "counts"})
    odd = agent.get("/inbox/", params={"view": "nonsense", "partial": "counts"})

    assert counts.status_code == 200
    assert counts.text.lstrip().startswith('<nav aria-label="Views" id="view-counts"')
    assert re.search(r'All open</span> <span class="count">1</span>', counts.text)
    # An unknown view is the default one, as on the page.
    assert odd.status_code == 200
    assert 'href="/inbox/?view=mine" aria-current="page"' in odd.text
