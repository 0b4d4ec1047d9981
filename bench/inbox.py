"""The inbox in the bench: the queue's Mine view (50 rows, a member logged in with a
session) beside the GraphQL request that reads the same data, and the same page in the
1k- and 100k-issue workspaces; and the issue page (`/inbox/issues/<n>`, issues of 20
messages) beside the GraphQL request that reads what it shows.

Each measured workspace gets a member (made once, reused) to whom 200 open issues are
assigned, so that Mine holds four pages; the bench logs in over HTTP as a browser does
and sends the session cookie with every request."""

from __future__ import annotations

import re
from collections.abc import Sequence

import httpx

from bench.scenarios import Requests, Scenario, Workload, body
from bench.seed import fetch
from supportdesk.config import normalise_database_url
from supportdesk.db import Database
from supportdesk.domain import audit, members
from supportdesk.domain.errors import DomainError
from supportdesk.domain.issues import BulkChange, update_issues
from supportdesk.domain.members.queries import list_members
from supportdesk.domain.pagination import PageRequest

# The bench database is throwaway, made by and for the bench.
PASSWORD = "bench inbox password"  # noqa: S105
ASSIGNED = 200
OPEN = ("new", "open", "pending", "on_hold")
# The server name of the GraphQL request beside the page: the same server as "ours".
GRAPHQL = "ours+graphql"
MINE = "/inbox/?view=mine"

# What the queue's page shows, asked of the API: the page of Mine with each row's
# requester, assignee and labels, the four views' counts, the labels and members its
# filters offer.
QUEUE = """query InboxQueue($me: ID!, $open: [String!]!) {
  mine: issues(first: 50, filter: {assigneeId: $me, status: $open}, orderBy: UPDATED_AT_DESC) {
    totalCount
    edges { cursor node {
      id ticketNumber subject status priority updatedAt
      requester { id email name }
      assignee { ... on Member { id name } ... on MachineUser { id name } }
      labels { id name color }
    } }
    pageInfo { hasNextPage endCursor }
  }
  unassigned: issues(first: 0, filter: {unassigned: true, status: $open}) { totalCount }
  open: issues(first: 0, filter: {status: $open}) { totalCount }
  solved: issues(first: 0, filter: {status: ["solved", "closed"]}) { totalCount }
  labels(first: 100) { edges { node { id name color } } }
  members(first: 100) { edges { node { id name email } } }
}"""


# What the issue page shows, asked of the API: the issue, its whole thread with each
# message's author and files, the requester and their account, the issue's labels and the
# workspace's labels and members its controls offer.
ISSUE_PAGE = """query InboxIssue($number: Int!) {
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
ISSUE_PATH = "/inbox/issues/"


def member_email(workspace: str) -> str:
    return f"inbox@{workspace}.bench.example.com"


async def _member_id(database: Database, workspace_id: str, email: str) -> str:
    try:
        made = await members.create_member(
            database, audit.CLI_ACTOR, workspace_id, email=email, role="agent", password=PASSWORD
        )
        return made.id
    except DomainError:  # made by an earlier run
        found = (await list_members(database, workspace_id, PageRequest(100, None))).items
        return next(member.id for member in found if member.email == email)


async def prepare_members(url: str, workspaces: dict[str, str]) -> dict[str, str]:
    """A member per workspace (name -> id) with ASSIGNED open issues assigned to them."""
    database = Database(normalise_database_url(url), pool_size=1)
    found = {}
    try:
        for name, workspace_id in workspaces.items():
            member_id = await _member_id(database, workspace_id, member_email(name))
            rows = await fetch(
                url,
                "SELECT id FROM issues WHERE workspace_id = $1 AND status IN "
                "('new', 'open', 'pending', 'on_hold') ORDER BY ticket_number LIMIT $2",
                workspace_id,
                ASSIGNED,
            )
            ids = [row[0] for row in rows]
            for start in range(0, len(ids), 100):
                change = BulkChange(ids[start : start + 100], assign=True, assignee_id=member_id)
                await update_issues(database, audit.CLI_ACTOR, workspace_id, change)
            found[name] = member_id
    finally:
        await database.dispose()
    return found


async def ticket_numbers(url: str, workspace_id: str, issue_ids: Sequence[str]) -> list[int]:
    """The ticket numbers of `issue_ids`, in their order: the issue page's address."""
    rows = await fetch(
        url, "SELECT id, ticket_number FROM issues WHERE workspace_id = $1", workspace_id
    )
    found = dict(rows)
    return [found[issue_id] for issue_id in issue_ids]


def log_in(base_url: str, workspace: str) -> str:
    """The Cookie header of a fresh session of the workspace's bench member."""
    with httpx.Client(base_url=base_url, timeout=30) as client:
        form = client.get("/login").text
        token = re.search(r'name="csrf_token" value="([^"]+)"', form)
        assert token, "the login page has no CSRF token"
        answer = client.post(
            "/login",
            data={
                "csrf_token": token.group(1),
                "email": member_email(workspace),
                "password": PASSWORD,
            },
        )
        if answer.status_code != 303:
            raise RuntimeError(f"the bench member of {workspace} could not log in: {answer.text}")
        return "; ".join(f"{name}={value}" for name, value in client.cookies.items())


def _page(cookie: str) -> Requests:
    return Requests([MINE.encode()], method="GET", cookie=cookie)


def issue_page(load: Workload, cookie: str) -> Scenario:
    """`inbox-issue`: the issue page of each issue of 20 messages in the main workspace,
    and on the same server the GraphQL request that reads what the page shows."""
    main = load.main_workspace
    numbers = load.inbox_issue_numbers
    page = Requests([f"{ISSUE_PATH}{n}".encode() for n in numbers], method="GET", cookie=cookie)
    graphql = Requests(
        [body(ISSUE_PAGE, "InboxIssue", {"number": n}) for n in numbers], load.bearer(main)
    )
    return Scenario(
        "inbox-issue",
        "inbox issue page (20 messages) vs GraphQL",
        "operations",
        {"ours": page, GRAPHQL: graphql},
        root="issueByNumber",
    )


def scenarios(
    load: Workload, cookies: dict[str, str], sizes: Sequence[tuple[str, str]]
) -> list[Scenario]:
    """`inbox-queue` (the page and its GraphQL twin in the main workspace),
    `inbox-queue-<size>` (the page in each workspace of the growth curve) and
    `inbox-issue` (the issue page and its GraphQL twin, when the workload has issues for it)."""
    main = load.main_workspace
    variables = {"me": load.inbox_members[main], "open": list(OPEN)}
    graphql = Requests([body(QUEUE, "InboxQueue", variables)], load.bearer(main))
    found = [
        Scenario(
            "inbox-queue",
            "inbox Mine page vs GraphQL",
            "operations",
            {"ours": _page(cookies[main]), GRAPHQL: graphql},
            root="mine",
        )
    ]
    for name, label in sizes:
        if name in cookies:
            found.append(
                Scenario(
                    f"inbox-queue-{label}",
                    f"inbox Mine page in a {label}-issue workspace",
                    "inbox",
                    {"ours": _page(cookies[name])},
                    root="mine",
                )
            )
    if load.inbox_issue_numbers:
        found.append(issue_page(load, cookies[main]))
    return found


def verify_page(url: str, requests: Requests) -> int:
    """The page answers 200 with what it is for: the queue's rows (50 where the member has
    that many), an issue page's messages; their number (of the last page asked)."""
    shown = 0
    for path in requests.bodies[:2]:
        answer = httpx.get(url + path.decode(), headers=requests.headers, timeout=30)
        if path.decode().startswith(ISSUE_PATH):
            what, shown = "messages", answer.text.count('class="msg ')
        else:
            what, shown = "rows", answer.text.count('<tr class="queue-row"')
        if answer.status_code != 200 or not shown:
            raise RuntimeError(f"{path.decode()} answered {answer.status_code} with {shown} {what}")
    return shown
