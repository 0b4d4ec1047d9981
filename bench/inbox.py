"""The inbox's issue page under load (`inbox-issue`): a member's session GETs
/inbox/issues/<n> for issues of 20 messages, beside the GraphQL request that reads the same
data (the issue, its whole thread with authors and files, the requester and account, the
labels and the workspace's labels and members). Both go to the same server: "ours" answers
the GraphQL request, "ours+inbox" is ours serving the page."""

from __future__ import annotations

import html
import re

import httpx

from bench.scenarios import Requests, Scenario, Workload, body

SCENARIO = "inbox-issue"
INBOX = "ours+inbox"
# The seeded workspaces' admin (seed.init_workspace_row), a member like any agent.
EMAIL = "bench@example.com"
PASSWORD = "bench-password"  # noqa: S105 - the bench's own seeded login
_CSRF = re.compile(r'name="csrf_token" value="([^"]*)"')

ISSUE_PAGE_DATA = """query InboxIssue($number: Int!) {
  issueByNumber(ticketNumber: $number) {
    id ticketNumber subject status priority createdAt updatedAt
    mergedInto { id ticketNumber }
    assignee { ... on Member { id name } ... on MachineUser { id name } }
    labels { id name color }
    requester { id email name account { id name domain } }
    messages(first: 100) {
      edges { node {
        id body visibility senderName createdAt
        author {
          ... on Member { id name }
          ... on Contact { id contactName: name email }
          ... on MachineUser { id name }
        }
        attachments { id fileName sizeBytes contentType }
      } }
    }
  }
  labels(first: 100) { edges { node { id name color } } }
  members(first: 100) { edges { node { id name email role } } }
}"""

_NUMBER = "query Number($id: ID!) { issue(id: $id) { ticketNumber } }"


def _csrf(page: str) -> str:
    found = _CSRF.search(page)
    if not found:
        raise RuntimeError("the login page carries no CSRF token")
    return html.unescape(found.group(1))


def session_cookie(url: str, workspace_id: str) -> str:
    """Log the seeded admin in to `workspace_id` as a browser does; the session's cookie."""
    with httpx.Client(base_url=url, follow_redirects=False, timeout=30) as client:
        form = client.get("/login").text
        login = client.post(
            "/login", data={"csrf_token": _csrf(form), "email": EMAIL, "password": PASSWORD}
        )
        if login.status_code != 303:
            raise RuntimeError(f"the bench's login failed ({login.status_code})")
        if login.headers["location"].startswith("/workspace"):
            choice = client.get("/workspace").text
            chosen = client.post(
                "/workspace", data={"csrf_token": _csrf(choice), "workspace_id": workspace_id}
            )
            if chosen.status_code != 303:
                raise RuntimeError(f"the bench's workspace choice failed ({chosen.status_code})")
        client.get("/inbox/")  # the login's notice is shown once, then the cookie stays
        return "; ".join(f"{name}={value}" for name, value in client.cookies.items())


def _ticket_numbers(url: str, authorization: str, issue_ids: list[str]) -> list[int]:
    headers = {"Authorization": authorization}
    numbers = []
    for issue_id in issue_ids:
        answer = httpx.post(
            url + "/graphql",
            json={"query": _NUMBER, "variables": {"id": issue_id}},
            headers=headers,
            timeout=30,
        ).json()
        numbers.append(answer["data"]["issue"]["ticketNumber"])
    return numbers


def _check(url: str, requests: Requests) -> None:
    """The page answers, with its thread, to the cookie the load sends."""
    page = httpx.get(url + requests.paths[0], headers=requests.headers, timeout=30)
    if page.status_code != 200 or 'id="thread"' not in page.text:
        raise RuntimeError(f"the issue page answered {page.status_code}: {page.text[:300]!r}")


def issue_page(load: Workload, url: str) -> Scenario:
    """The scenario, for ours running at `url` (its session is made there)."""
    main = load.main_workspace
    numbers = _ticket_numbers(url, load.bearer(main), load.issue_ids[main])
    page = Requests(
        [],
        paths=[f"/inbox/issues/{number}" for number in numbers],
        cookie=session_cookie(url, load.workspace_ids[main]),
    )
    _check(url, page)
    graphql = Requests(
        [body(ISSUE_PAGE_DATA, "InboxIssue", {"number": number}) for number in numbers],
        load.bearer(main),
    )
    return Scenario(
        SCENARIO,
        "inbox issue page (20 messages) vs GraphQL",
        "inbox",
        {"ours": graphql, INBOX: page},
        root="issueByNumber",
    )
