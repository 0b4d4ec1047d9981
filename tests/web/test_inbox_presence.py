"""POST /inbox/issues/<ticketNumber>/presence: who else is on an issue, viewing it or
writing a reply, fresh within seconds, whichever server process each page talks to
(docs/inbox-live.md)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import httpx
import pytest

from supportdesk.domain.presence import FRESH_SECONDS
from tests.conftest import ADMIN_PASSWORD, TEST_SECRET_KEY, WorkspaceFixture
from tests.graphql.issues.helpers import new_issue
from tests.servers import RunningServer
from tests.web.settings_client import SettingsClient, hidden_fields

COOKIE = "supportdesk_session"
MEMBERS = "query { members(first: 50) { edges { node { id email } } } }"
REMOVE = "mutation($id: ID!) { removeMember(id: $id) { member { id } error { code } } }"
_LISTED = re.compile(
    r'<span class="presence-name">([^<]*)</span>\s*<span class="presence-state">'
    r"([^<]*)</span>"
)


@pytest.fixture(scope="module")
def second_server(server: RunningServer) -> Iterator[RunningServer]:
    """Another server process on the same database, as a deployment runs several."""
    running = RunningServer(
        server.backend,
        server.database_url,
        failed_auth_per_minute=1_000_000,
        secret_key=TEST_SECRET_KEY,
    ).start()
    yield running
    running.stop()


class Member:
    """A member logged in, with the CSRF token of their pages."""

    def __init__(self, workspace: WorkspaceFixture, email: str) -> None:
        self.email = email
        self.client = SettingsClient(workspace.server.base_url).logged_in(email, ADMIN_PASSWORD)
        self.csrf = hidden_fields(self.client.get("/inbox/").text)["csrf_token"]

    def beat(self, number: int, state: str, *, via: str | None = None) -> httpx.Response:
        form = {"csrf_token": self.csrf, "state": state}
        if via is None:
            return self.client.post(f"/inbox/issues/{number}/presence", form)
        # The same session, sent to another server process.
        other = SettingsClient(via)
        other.http.cookies.set(COOKIE, self.client.http.cookies.get(COOKIE) or "", path="/")
        return other.post(f"/inbox/issues/{number}/presence", form)

    def others(self, number: int, state: str = "viewing") -> dict[str, str]:
        """Who this member's page lists, and what they are doing."""
        answer = self.beat(number, state)
        assert answer.status_code == 200, (answer.status_code, answer.text[:300])
        return dict(_LISTED.findall(answer.text))


@pytest.fixture
def issue_number(workspace: WorkspaceFixture) -> int:
    return int(new_issue(workspace.client())["ticketNumber"])


def agent(workspace: WorkspaceFixture) -> Member:
    return Member(workspace, workspace.add_person("agent"))


def test_two_members_see_each_other_viewing_then_replying(
    workspace: WorkspaceFixture, issue_number: int
) -> None:
    alice, bob = agent(workspace), agent(workspace)
    assert alice.others(issue_number) == {}

    assert bob.others(issue_number) == {alice.email: "is viewing"}
    assert alice.others(issue_number, "replying") == {bob.email: "is viewing"}
    assert bob.others(issue_number) == {alice.email: "is writing a reply"}


def test_a_member_on_another_issue_is_not_listed(
    workspace: WorkspaceFixture, issue_number: int
) -> None:
    alice, bob = agent(workspace), agent(workspace)
    other_number = int(new_issue(workspace.client())["ticketNumber"])
    alice.others(other_number)

    assert bob.others(issue_number) == {}


def test_a_member_whose_page_stopped_beating_goes_within_the_freshness(
    workspace: WorkspaceFixture, issue_number: int
) -> None:
    alice, bob = agent(workspace), agent(workspace)
    alice.others(issue_number)
    stopped = time.monotonic()
    assert bob.others(issue_number) == {alice.email: "is viewing"}

    while bob.others(issue_number):
        assert time.monotonic() - stopped < FRESH_SECONDS + 1, "still listed"
        time.sleep(0.2)  # bob's page beats on; alice's does not
    assert time.monotonic() - stopped >= FRESH_SECONDS - 0.5


def test_a_page_that_leaves_is_gone_at_once(workspace: WorkspaceFixture, issue_number: int) -> None:
    alice, bob = agent(workspace), agent(workspace)
    alice.others(issue_number, "replying")
    assert bob.others(issue_number) == {alice.email: "is writing a reply"}

    left = alice.beat(issue_number, "left")

    assert left.status_code == 204
    assert bob.others(issue_number) == {}


def test_presence_holds_across_server_processes(
    workspace: WorkspaceFixture, issue_number: int, second_server: RunningServer
) -> None:
    alice, bob = agent(workspace), agent(workspace)
    on_second = alice.beat(issue_number, "replying", via=second_server.base_url)
    assert on_second.status_code == 200

    assert bob.others(issue_number) == {alice.email: "is writing a reply"}
    seen_from_second = bob.beat(issue_number, "viewing", via=second_server.base_url)
    assert dict(_LISTED.findall(seen_from_second.text)) == {alice.email: "is writing a reply"}


def test_a_removed_member_is_no_longer_listed(
    workspace: WorkspaceFixture, issue_number: int
) -> None:
    alice, bob = agent(workspace), agent(workspace)
    alice.others(issue_number)
    edges = workspace.client().ok(MEMBERS)["members"]["edges"]
    alice_id = next(e["node"]["id"] for e in edges if e["node"]["email"] == alice.email)
    assert workspace.client().ok(REMOVE, {"id": alice_id})["removeMember"]["error"] is None

    assert bob.others(issue_number) == {}
    assert alice.beat(issue_number, "viewing").status_code == 303


@pytest.mark.parametrize("token", [None, "", "not-the-token"])
def test_a_beat_without_the_pages_csrf_token_is_refused(
    workspace: WorkspaceFixture, issue_number: int, token: str | None
) -> None:
    alice, bob = agent(workspace), agent(workspace)
    form = {"state": "replying"} | ({} if token is None else {"csrf_token": token})

    refused = alice.client.post(f"/inbox/issues/{issue_number}/presence", form)

    assert refused.status_code == 403
    assert bob.others(issue_number) == {}


def test_another_members_token_is_no_token(workspace: WorkspaceFixture, issue_number: int) -> None:
    alice, bob = agent(workspace), agent(workspace)
    form = {"csrf_token": bob.csrf, "state": "viewing"}

    assert alice.client.post(f"/inbox/issues/{issue_number}/presence", form).status_code == 403


def test_a_state_that_is_not_one_is_refused_and_nothing_is_recorded(
    workspace: WorkspaceFixture, issue_number: int
) -> None:
    alice, bob = agent(workspace), agent(workspace)
    for state in ("", "typing", "x" * 500):
        assert alice.beat(issue_number, state).status_code == 400
    assert bob.others(issue_number) == {}


def test_an_issue_that_is_not_the_workspaces_is_not_found(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    alice = agent(workspace)
    for _ in range(2):
        new_issue(other_workspace.client())
    foreign = int(new_issue(other_workspace.client())["ticketNumber"])

    for number in (foreign, 2**31, 2**40):
        assert alice.beat(number, "viewing").status_code == 404


def test_without_a_session_a_beat_goes_to_the_login(
    workspace: WorkspaceFixture, issue_number: int
) -> None:
    anonymous = SettingsClient(workspace.server.base_url)
    csrf = hidden_fields(anonymous.get("/login").text)["csrf_token"]

    answer = anonymous.post(
        f"/inbox/issues/{issue_number}/presence", {"csrf_token": csrf, "state": "viewing"}
    )

    assert answer.status_code == 303
    assert answer.headers["location"] == "/login"
