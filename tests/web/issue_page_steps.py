"""Shared steps of the issue page's tests: an agent logged in, issues made over the API,
the page's forms posted as a browser posts them, the thread read back over GraphQL."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

import httpx

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture, unique_email
from tests.graphql.issues.helpers import new_issue
from tests.graphql.members.helpers import new_member
from tests.web.settings_client import SettingsClient

AGENT_PASSWORD = "an agent's long password"
_CSRF = re.compile(r'name="csrf_token" value="([^"]*)"')
_SEEN = re.compile(r'name="seen_up_to" value="([^"]*)"')

THREAD = """
query($id: ID!) {
  issue(id: $id) {
    id ticketNumber status priority messageCount mergedInto { id }
    assignee { __typename ... on Member { id } ... on MachineUser { id } }
    labels { id name }
    messages(first: 100) { edges { node {
      id body visibility senderName
      author { __typename ... on Member { id name } ... on Contact { id } ... on MachineUser { id } }
      attachments { id fileName sizeBytes }
    } } }
  }
}
"""


@dataclass
class Agent:
    """A member of role agent, logged in over HTTP."""

    id: str
    name: str
    email: str
    http: SettingsClient

    def page(self, number: int) -> httpx.Response:
        return self.http.get(f"/inbox/issues/{number}")

    def post(
        self,
        number: int,
        action: str,
        fields: dict[str, Any] | None = None,
        page: str | None = None,
    ) -> httpx.Response:
        """POST one of the page's forms: its CSRF token (and the thread's newest message
        seen) from the page as it is now, or as `page` showed it."""
        shown = page if page is not None else self.page(number).text
        data: list[tuple[str, str]] = [("csrf_token", csrf_of(shown))]
        if action == "messages":
            data.append(("seen_up_to", seen_of(shown)))
        for name, value in (fields or {}).items():
            for item in value if isinstance(value, list) else [value]:
                data.append((name, str(item)))
        return self.http.post(f"/inbox/issues/{number}/{action}", data)


def csrf_of(page: str) -> str:
    found = _CSRF.search(page)
    assert found, page[:2000]
    return html.unescape(found.group(1))


def seen_of(page: str) -> str:
    found = _SEEN.search(page)
    assert found, page[:2000]
    return found.group(1)


def make_agent(workspace: WorkspaceFixture, name: str = "Roy Trenneman") -> Agent:
    email = unique_email("agent")
    member = new_member(workspace.client(), email, name=name, role="agent", password=AGENT_PASSWORD)
    http = SettingsClient(workspace.server.base_url).logged_in(email, AGENT_PASSWORD)
    return Agent(member["id"], name, email, http)


def make_issue(api: GraphQLClient, **overrides: Any) -> dict[str, Any]:
    issue: dict[str, Any] = new_issue(api, **overrides)
    return issue


def thread_of(api: GraphQLClient, issue_id: str) -> dict[str, Any]:
    issue: dict[str, Any] = api.ok(THREAD, {"id": issue_id})["issue"]
    issue["thread"] = [edge["node"] for edge in issue["messages"]["edges"]]
    return issue
