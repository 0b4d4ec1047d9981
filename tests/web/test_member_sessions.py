"""An agent's login ends as an admin's does: at logout, and on the next request after they
are removed, on the inbox as on every page; a copy of the cookie opens nothing after."""

from __future__ import annotations

from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture
from tests.graphql.members.helpers import MEMBERS, remove_member
from tests.web.settings_client import SettingsClient

COOKIE = "supportdesk_session"


def agent_logged_in(workspace: WorkspaceFixture) -> tuple[SettingsClient, str]:
    email = workspace.add_person("agent")
    return SettingsClient(workspace.server.base_url).logged_in(email, ADMIN_PASSWORD), email


def copy_of(client: SettingsClient, base_url: str) -> SettingsClient:
    other = SettingsClient(base_url)
    other.http.cookies.set(COOKIE, client.http.cookies.get(COOKIE) or "", path="/")
    return other


def test_an_agents_logout_ends_the_session_for_every_copy(workspace: WorkspaceFixture) -> None:
    agent, _ = agent_logged_in(workspace)
    copied = copy_of(agent, workspace.server.base_url)
    assert copied.get("/inbox/").status_code == 200

    out = agent.submit("/inbox/", "/logout")
    after = [agent.get("/inbox/"), copied.get("/inbox/"), copied.get("/settings/api")]

    assert (out.status_code, out.headers["location"]) == (303, "/login")
    for answer in after:
        assert (answer.status_code, answer.headers["location"]) == (303, "/login")


def test_a_removed_agents_next_request_is_sent_to_the_login(workspace: WorkspaceFixture) -> None:
    agent, email = agent_logged_in(workspace)
    copied = copy_of(agent, workspace.server.base_url)  # taken while the login was live
    api = workspace.client()
    [agent_id] = [
        edge["node"]["id"]
        for edge in api.ok(MEMBERS)["members"]["edges"]
        if edge["node"]["email"] == email
    ]

    assert remove_member(api, agent_id)["error"] is None
    inbox = agent.get("/inbox/")
    told = agent.get("/login")
    from_the_copy = copied.get("/inbox/")

    assert (inbox.status_code, inbox.headers["location"]) == (303, "/login")
    assert told.status_code == 200 and "no longer valid" in told.text
    assert (from_the_copy.status_code, from_the_copy.headers["location"]) == (303, "/login")
    assert agent.login(email, ADMIN_PASSWORD).status_code == 401
