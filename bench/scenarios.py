"""What the bench asks: each scenario's request bodies for ours, the floor and PostGraphile.

A scenario holds a pool of JSON bodies per server (wrk cycles through them, so reads spread
over many issues and writes over many requesters). The floor gets our bodies and picks its
handler by `operationName`; PostGraphile gets its own query shape for the same data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

ISSUE = """query Issue($id: ID!, $first: Int!) {
  issue(id: $id) {
    id ticketNumber subject status priority createdAt updatedAt messageCount
    messages(first: $first) {
      totalCount
      edges { cursor node { id senderName body createdAt } }
      pageInfo { hasNextPage endCursor }
    }
  }
}"""

ISSUES = """query Issues($first: Int!) {
  issues(first: $first) {
    edges {
      cursor
      node {
        id ticketNumber subject status priority createdAt
        requester { id email name }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}"""

CREATE_ISSUE = """mutation CreateIssue($input: CreateIssueInput!) {
  createIssue(input: $input) {
    issue { id ticketNumber subject status priority createdAt }
    error { code message }
  }
}"""

REPLY_TO_ISSUE = """mutation ReplyToIssue($input: ReplyToIssueInput!) {
  replyToIssue(input: $input) {
    issue { id status messageCount updatedAt }
    message { id senderName body createdAt }
    error { code message }
  }
}"""

# The like-for-like shape: the same issue fields and the simplest page of its thread, with
# no cursors, page info or counts, so that neither side computes what the other does not.
ISSUE_SIMPLE = """query IssueSimple($id: ID!) {
  issue(id: $id) {
    id ticketNumber subject status priority createdAt updatedAt messageCount
    messages(first: 20) { edges { node { senderName body createdAt } } }
  }
}"""

API_INFO = "query ApiInfo { apiInfo }"

# The change feed as an integration reads it, a full page (the writes workspace's events,
# seed.feed), and the workspace's machine users (their keys, which every run adds to, not).
EVENTS = """query Events($first: Int!) {
  events(first: $first) {
    totalCount
    edges {
      cursor
      node { id type sequence createdAt apiVersion workspaceId actor { type id name } data }
    }
    pageInfo { hasNextPage endCursor }
  }
}"""

MACHINE_USERS = """query MachineUsers {
  machineUsers(first: 50) {
    totalCount
    edges { cursor node { id name description managed createdAt updatedAt } }
    pageInfo { hasNextPage endCursor }
  }
}"""

# A search of the workspace's issues as a client's search box asks it: the first page of
# the most relevant, and how many there are.
ISSUE_SEARCH = """query IssueSearch($query: String!) {
  issues(first: 10, filter: {query: $query}) {
    totalCount
    edges { cursor node { id ticketNumber subject status updatedAt } }
  }
}"""

# PostGraphile's shape of the same reads: the Amber preset names the `id` column `rowId`
# (`id` is its global Node id) and relations after their foreign keys.
PG_ISSUE = """query Issue($workspaceId: String!, $id: String!, $first: Int!) {
  issue: issueByWorkspaceIdAndRowId(workspaceId: $workspaceId, rowId: $id) {
    id: rowId ticketNumber subject status priority createdAt updatedAt messageCount
    messages: messagesByWorkspaceIdAndIssueId(first: $first, orderBy: ROW_ID_ASC) {
      totalCount
      edges { cursor node { id: rowId senderName body createdAt } }
      pageInfo { hasNextPage endCursor }
    }
  }
}"""

PG_ISSUE_SIMPLE = """query IssueSimple($workspaceId: String!, $id: String!) {
  issue: issueByWorkspaceIdAndRowId(workspaceId: $workspaceId, rowId: $id) {
    id: rowId ticketNumber subject status priority createdAt updatedAt messageCount
    messages: messagesByWorkspaceIdAndIssueId(first: 20, orderBy: ROW_ID_ASC) {
      edges { node { senderName body createdAt } }
    }
  }
}"""

PG_ISSUES = """query Issues($workspaceId: String!, $first: Int!) {
  issues: allIssues(condition: {workspaceId: $workspaceId}, first: $first, orderBy: PRIMARY_KEY_ASC) {
    edges {
      cursor
      node {
        id: rowId ticketNumber subject status priority createdAt
        requester: contactByWorkspaceIdAndRequesterId { id: rowId email name }
      }
    }
    pageInfo { hasNextPage endCursor }
  }
}"""


@dataclass(frozen=True)
class Requests:
    """The bodies one server gets for a scenario, and the key it sends (if any)."""

    bodies: list[bytes]
    authorization: str | None = None
    # GET: each "body" is a path asked for (a page), sent with the session's cookie.
    method: str = "POST"
    cookie: str | None = None

    @property
    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"} if self.method == "POST" else {}
        if self.authorization:
            headers["Authorization"] = self.authorization
        if self.cookie:
            headers["Cookie"] = self.cookie
        return headers


@dataclass(frozen=True)
class Scenario:
    key: str
    label: str
    group: str  # "operations" | "messages" | "workspaces"
    servers: dict[str, Requests] = field(default_factory=dict)
    root: str = ""  # the field whose answer must be non-null
    writes: bool = False


def body(query: str, operation: str, variables: dict[str, Any] | None = None) -> bytes:
    payload: dict[str, Any] = {"query": query, "operationName": operation}
    if variables is not None:
        payload["variables"] = variables
    return orjson.dumps(payload)


@dataclass(frozen=True)
class Workload:
    """What the seeded database offers the scenarios."""

    backend: str
    main_workspace: str
    keys: dict[str, str]  # workspace name -> bearer secret
    workspace_ids: dict[str, str]
    issue_ids: dict[str, list[str]]  # workspace name -> issues with 20 messages
    long_thread_ids: list[str]
    writable_issue_ids: list[str]
    writes_workspace: str
    article_query: str | None = None  # our articles document, when the schema has articles
    article_words: Sequence[str] = ()
    # createIssue's webhook comparison: a workspace without an endpoint, one with one.
    hook_workspaces: tuple[str, str] | None = None
    # What the issue search asks, the same in every workspace (seed.SEARCH_TERMS).
    issue_queries: Sequence[str] = ()
    # The inbox's bench member of each workspace, by workspace name (bench/inbox.py).
    inbox_members: dict[str, str] = field(default_factory=dict)
    # The ticket numbers of the main workspace's issues of 20 messages, for the issue page.
    inbox_issue_numbers: list[int] = field(default_factory=list)

    def bearer(self, workspace: str) -> str:
        return f"Bearer {self.keys[workspace]}"


def _issue_requests(
    load: Workload, workspace: str, ids: list[str], first: int, pg: bool
) -> dict[str, Requests]:
    ours = Requests(
        [body(ISSUE, "Issue", {"id": issue_id, "first": first}) for issue_id in ids],
        load.bearer(workspace),
    )
    servers = {"ours": ours, "floor": ours}
    if pg:
        workspace_id = load.workspace_ids[workspace]
        servers["postgraphile"] = Requests(
            [
                body(PG_ISSUE, "Issue", {"workspaceId": workspace_id, "id": i, "first": first})
                for i in ids
            ]
        )
    return servers


def _simple_issue_requests(load: Workload, pg: bool) -> dict[str, Requests]:
    """The like-for-like `issue`: ISSUE_SIMPLE on ours and the floor, PG_ISSUE_SIMPLE on
    PostGraphile, over the same issues as the full `issue` scenario."""
    main = load.main_workspace
    ids = load.issue_ids[main]
    ours = Requests([body(ISSUE_SIMPLE, "IssueSimple", {"id": i}) for i in ids], load.bearer(main))
    servers = {"ours": ours, "floor": ours}
    if pg:
        workspace_id = load.workspace_ids[main]
        servers["postgraphile"] = Requests(
            [
                body(PG_ISSUE_SIMPLE, "IssueSimple", {"workspaceId": workspace_id, "id": i})
                for i in ids
            ]
        )
    return servers


def create_issue_requests(load: Workload, workspace: str) -> Requests:
    """createIssue bodies: 500 requesters at 40 companies, so the first pass creates
    contacts and later ones find them."""
    return Requests(
        [
            body(
                CREATE_ISSUE,
                "CreateIssue",
                {
                    "input": {
                        "subject": f"Bench issue {n}",
                        "body": "The export to CSV stops at 10,000 rows. Is there a limit?",
                        "requesterEmail": f"requester{n}@company{n % 40}.example.com",
                        "requesterName": f"Requester {n}",
                        "priority": ("low", "normal", "high")[n % 3],
                    }
                },
            )
            for n in range(500)
        ],
        load.bearer(workspace),
    )


def operations(load: Workload, postgraphile: bool) -> list[Scenario]:
    main = load.main_workspace
    writes = load.writes_workspace
    pg = postgraphile and load.backend == "postgresql"
    found = [
        Scenario(
            "issue",
            "issue (20 messages)",
            "operations",
            _issue_requests(load, main, load.issue_ids[main], 20, pg),
            root="issue",
        ),
        Scenario(
            "issue-simple",
            "issue, like-for-like shape",
            "operations",
            _simple_issue_requests(load, pg),
            root="issue",
        ),
    ]
    issues = {"ours": Requests([body(ISSUES, "Issues", {"first": 50})], load.bearer(main))}
    issues["floor"] = issues["ours"]
    if pg:
        variables = {"workspaceId": load.workspace_ids[main], "first": 50}
        issues["postgraphile"] = Requests([body(PG_ISSUES, "Issues", variables)])
    found.append(
        Scenario("issues", "issues(first: 50) + requester", "operations", issues, root="issues")
    )
    create = create_issue_requests(load, writes)
    found.append(
        Scenario(
            "createIssue",
            "createIssue",
            "operations",
            {"ours": create, "floor": create},
            root="createIssue",
            writes=True,
        )
    )
    reply = Requests(
        [
            body(
                REPLY_TO_ISSUE,
                "ReplyToIssue",
                {"input": {"issueId": issue_id, "body": "Thanks, we are looking into it."}},
            )
            for issue_id in load.writable_issue_ids
        ],
        load.bearer(writes),
    )
    found.append(
        Scenario(
            "replyToIssue",
            "replyToIssue",
            "operations",
            {"ours": reply, "floor": reply},
            root="replyToIssue",
            writes=True,
        )
    )
    info = Requests([body(API_INFO, "ApiInfo")], load.bearer(main))
    found.append(
        Scenario("apiInfo", "apiInfo", "operations", {"ours": info, "floor": info}, root="apiInfo")
    )
    events = Requests([body(EVENTS, "Events", {"first": 100})], load.bearer(writes))
    found.append(
        Scenario("events", "events(first: 100)", "operations", {"ours": events}, root="events")
    )
    users = Requests([body(MACHINE_USERS, "MachineUsers")], load.bearer(writes))
    found.append(
        Scenario("machineUsers", "machineUsers", "operations", {"ours": users}, root="machineUsers")
    )
    if load.article_query:
        search = Requests(
            [
                body(load.article_query, "ArticleSearch", {"query": word})
                for word in load.article_words
            ],
            load.bearer(main),
        )
        found.append(
            Scenario(
                "articleSearch",
                "articles(query) search",
                "operations",
                {"ours": search},
                root="articles",
            )
        )
    return found


def message_growth(load: Workload, sizes: Sequence[int], with_floor: bool = True) -> list[Scenario]:
    main = load.main_workspace
    found = []
    for size in sizes:
        servers = _issue_requests(load, main, load.long_thread_ids, size, pg=False)
        if not with_floor:
            del servers["floor"]
        label = f"issue + messages(first: {size})"
        found.append(Scenario(f"messages-{size}", label, "messages", servers, root="issue"))
    return found


def metrics_cost(load: Workload) -> list[Scenario]:
    """`issue` (20 messages) on ours with Prometheus metrics off and on: what they cost."""
    main = load.main_workspace
    requests = _issue_requests(load, main, load.issue_ids[main], 20, pg=False)["ours"]
    return [
        Scenario(
            "issue-metrics",
            "issue, /metrics off vs on",
            "metrics",
            {"ours": requests, "ours+metrics": requests},
            root="issue",
        )
    ]


# The name the webhook comparison gives ours when it creates issues where an endpoint
# listens: the same server process as "ours", another workspace.
WITH_ENDPOINT = "ours+webhook"


def webhook_cost(load: Workload) -> list[Scenario]:
    """createIssue on ours into a workspace without a webhook endpoint ("ours") and into
    one whose endpoint takes every event type ("ours+webhook"): the same warm server, which
    queues and sends the deliveries itself, so their cost is in its figures."""
    if load.hook_workspaces is None:
        return []
    without, with_endpoint = load.hook_workspaces
    return [
        Scenario(
            "createIssue-webhook",
            "createIssue, no endpoint vs one",
            "webhooks",
            {
                "ours": create_issue_requests(load, without),
                WITH_ENDPOINT: create_issue_requests(load, with_endpoint),
            },
            root="createIssue",
            writes=True,
        )
    ]


def workspace_growth(load: Workload, workspaces: Sequence[tuple[str, str]]) -> list[Scenario]:
    """`issue` (20 messages) in workspaces of growing size, all in the same database."""
    return [
        Scenario(
            f"workspace-{label}",
            f"issue in a {label}-issue workspace",
            "workspaces",
            {
                "ours": Requests(
                    [body(ISSUE, "Issue", {"id": i, "first": 20}) for i in load.issue_ids[name]],
                    load.bearer(name),
                )
            },
            root="issue",
        )
        for name, label in workspaces
    ]


def search_growth(load: Workload, workspaces: Sequence[tuple[str, str]]) -> list[Scenario]:
    """issues(filter: {query}) in workspaces of growing size, each word found in as many
    issues in every one of them."""
    return [
        Scenario(
            f"search-{label}",
            f"issue search in a {label}-issue workspace",
            "search",
            {
                "ours": Requests(
                    [body(ISSUE_SEARCH, "IssueSearch", {"query": q}) for q in load.issue_queries],
                    load.bearer(name),
                )
            },
            root="issues",
        )
        for name, label in workspaces
    ]


def article_search_document(schema: Any) -> str | None:
    """Our article search, when the schema has `articles(filter: {query})`; None otherwise.
    Asks for the article fields that exist among id, title and status."""
    query_type = schema.query_type
    field_ = query_type.fields.get("articles") if query_type else None
    if field_ is None or "filter" not in field_.args:
        return None
    filter_type = field_.args["filter"].type
    while hasattr(filter_type, "of_type"):
        filter_type = filter_type.of_type
    if "query" not in getattr(filter_type, "fields", {}):
        return None
    article = schema.type_map.get("Article")
    wanted = [name for name in ("id", "title", "status") if article and name in article.fields]
    return (
        "query ArticleSearch($query: String!) {\n"
        "  articles(first: 10, filter: {query: $query}) {\n"
        f"    edges {{ node {{ {' '.join(wanted or ['__typename'])} }} }}\n"
        "  }\n"
        "}"
    )
