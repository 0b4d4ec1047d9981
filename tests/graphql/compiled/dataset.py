"""The data every differential test reads: one workspace filled through the public API
with the variety a compiled answer must render exactly as the executor does (requesters
with and without accounts or names, text that JSON must escape, threads with notes and
replies by several authors, labels, assignees of both kinds, a merge, articles of both
states), and what a test needs to name it (ids of each kind, ticket numbers, cursors)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.factories import api_key, machine_user
from tests.graphql.issues.helpers import add_note, new_issue, reply, update

# Text JSON must escape, or that a database may store or compare unlike Python.
AWKWARD_TEXT = [
    "Quotes \"double\" and 'single'",
    "Back\\slash \\n not a newline, C:\\Temp\\",
    "Line one\nLine two\r\nTab\there",
    "Unicode: café, naïve, Ærøskøbing, Ελληνικά, 日本語",
    "Emoji 🔥🖨️ and 👩‍💻 joined",
    "Control \u0001 and \u001f characters",
    "</script><b>html</b> & ampersand",
    "Surrogate-free astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    " leading and trailing spaces ",
    "A very long subject " + "x" * 200,
    "Percent % underscore _ and 'like' wildcards",
    "Right-to-left: שלום, مرحبا",
    "Zero width\u200bjoiner and non-breaking\u00a0space",
]
PRIORITIES = ["low", "normal", "high", "urgent"]
# A path from `new` through the workflow for each status an issue ends in.
STATUS_PATHS: dict[str, list[str]] = {
    "new": [],
    "open": ["open"],
    "pending": ["pending"],
    "on_hold": ["open", "on_hold"],
    "solved": ["solved"],
    "closed": ["solved", "closed"],
}

CREATE_LABEL = """
mutation($input: CreateLabelInput!) {
  createLabel(input: $input) { label { id name } error { code message } }
}
"""
ADD_LABELS = """
mutation($input: AddLabelsInput!) {
  addLabels(input: $input) { issue { id } error { code message } }
}
"""
CREATE_MEMBER = """
mutation($input: CreateMemberInput!) {
  createMember(input: $input) { member { id } error { code message } }
}
"""
ASSIGN = """
mutation($input: AssignIssueInput!) {
  assignIssue(input: $input) { issue { id } error { code message } }
}
"""
MERGE = """
mutation($input: MergeIssueInput!) {
  mergeIssue(input: $input) { issue { id } error { code message } }
}
"""
CREATE_ACCOUNT = """
mutation($input: CreateAccountInput!) {
  createAccount(input: $input) { account { id } error { code message } }
}
"""
CREATE_CONTACT = """
mutation($input: CreateContactInput!) {
  createContact(input: $input) { contact { id } error { code message } }
}
"""
CREATE_ARTICLE = """
mutation($input: CreateArticleInput!) {
  createArticle(input: $input) { article { id } error { code message } }
}
"""
DELETE_LABEL = """
mutation($id: ID!) { deleteLabel(id: $id) { label { id } error { code message } } }
"""
# Cursors of every connection the compiled answers cover, read by the executor.
CURSORS = """
query($issue: ID!, $contact: ID!, $account: ID!) {
  asc: issues(first: 100) { edges { cursor } }
  desc: issues(first: 100, orderBy: CREATED_AT_DESC) { edges { cursor } }
  byUpdate: issues(first: 3, orderBy: UPDATED_AT_ASC) { edges { cursor } }
  issue(id: $issue) { messages(first: 100) { edges { cursor } } }
  contact(id: $contact) { issues(first: 100) { edges { cursor } } }
  account(id: $account) {
    contacts(first: 100) { edges { cursor } }
    issues(first: 100) { edges { cursor } }
  }
}
"""

READ_SCOPES = ["issues:read", "contacts:read", "accounts:read", "articles:read", "members:read"]


def _ok(api: GraphQLClient, document: str, variables: dict[str, Any], name: str) -> Any:
    payload = api.ok(document, variables)[name]
    assert payload["error"] is None, payload
    return payload


@dataclass
class Dataset:
    """What the workspace holds, by kind, and keys of varied scopes to read it with."""

    issues: list[str] = field(default_factory=list)
    ticket_numbers: list[int] = field(default_factory=list)
    contacts: list[str] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    accounts: list[str] = field(default_factory=list)
    articles: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    members: list[str] = field(default_factory=list)
    machine_users: list[str] = field(default_factory=list)
    cursors: list[str] = field(default_factory=list)
    # (name, scopes, secret): Full access, Read-only, one scope, random subsets.
    keys: list[tuple[str, tuple[str, ...], str]] = field(default_factory=list)
    words: list[str] = field(default_factory=lambda: ["printer", "fire", "café", "🔥", "refund"])

    def ids_of(self, kind: str) -> list[str]:
        return {
            "Issue": self.issues,
            "Contact": self.contacts,
            "Account": self.accounts,
            "Article": self.articles,
            "Label": self.labels,
            "Member": self.members,
            "MachineUser": self.machine_users,
        }[kind]

    def all_ids(self) -> list[str]:
        return [
            *self.issues,
            *self.contacts,
            *self.accounts,
            *self.articles,
            *self.labels,
            *self.members,
            *self.machine_users,
        ]


def fill(workspace: WorkspaceFixture, seed: int = 16) -> Dataset:
    """Make the data, deterministic but for ids and instants."""
    rng = random.Random(seed)
    api = workspace.client()
    data = Dataset()

    # Accounts: two with domains (their contacts join them), one without.
    for name, domain in [
        ('Acme "Rockets" Ltd', "acme.example"),
        ("Ünïcode GmbH 🔧", "unicode.example"),
        ("No domain, Inc.", None),
    ]:
        made = _ok(
            api, CREATE_ACCOUNT, {"input": {"name": name, "domain": domain}}, "createAccount"
        )
        data.accounts.append(made["account"]["id"])
    # An account with no contacts at all.
    lonely = _ok(api, CREATE_ACCOUNT, {"input": {"name": "Lonely"}}, "createAccount")
    data.accounts.append(lonely["account"]["id"])
    # A contact put in the domainless account by hand.
    by_hand = _ok(
        api,
        CREATE_CONTACT,
        {
            "input": {
                "email": "hand@elsewhere.example",
                "name": "Hand Placed",
                "accountId": data.accounts[2],
            }
        },
        "createContact",
    )
    data.contacts.append(by_hand["contact"]["id"])
    data.emails.append("hand@elsewhere.example")

    requesters: list[tuple[str, str | None]] = [
        ("moss@acme.example", "Maurice Moss"),
        ("roy@acme.example", None),
        ("jen@unicode.example", 'Jén "the boss" Barber'),
        ("hand@elsewhere.example", "Hand Placed"),
        ("douglas@nowhere.example", None),
        ("richmond@nowhere.example", "Richmond \\ Avenal"),
        ("emoji@nowhere.example", "🦄 Unicorn"),
    ]

    # People who work issues: two members, two machine users (one of them the key's).
    for role, name in [("agent", "Agent Ångström"), ("admin", 'Admin "Root"')]:
        made = _ok(
            api,
            CREATE_MEMBER,
            {"input": {"email": f"{role}-{seed}@staff.example", "name": name, "role": role}},
            "createMember",
        )
        data.members.append(made["member"]["id"])
    # The managed machine user (the Full-access key's) and one of our own, with a key.
    data.machine_users.append(api.ok("{ apiInfo }")["apiInfo"]["machineUser"]["id"])
    bot = machine_user(api, "Triage bot 🤖", 'Sorts "everything"\nquickly')
    data.machine_users.append(bot["id"])
    bot_key = api_key(api, bot["id"], ["issues:read", "issues:write", "thread:reply"])["secret"]
    bot_api = api.with_key(bot_key)

    labels = [
        ("bug", "#ff0000", "Something is broken"),
        ('Feature "request"', None, ""),
        ("ünïcödé 🏷️", "#00ff00", "Back\\slash\nnewline"),
        ("zzz last", "#0000ff", None),
        ("AAA first", None, None),
    ]
    for name, color, description in labels:
        made = _ok(
            api,
            CREATE_LABEL,
            {"input": {"name": name, "color": color, "description": description}},
            "createLabel",
        )
        data.labels.append(made["label"]["id"])

    for number in range(30):
        email, requester_name = requesters[number % len(requesters)]
        subject = AWKWARD_TEXT[number % len(AWKWARD_TEXT)] + f" #{number}"
        body = AWKWARD_TEXT[(number * 5 + 3) % len(AWKWARD_TEXT)]
        made = new_issue(
            api,
            subject=subject,
            body=body,
            requesterEmail=email,
            requesterName=requester_name,
            priority=PRIORITIES[number % 4],
        )
        issue_id = made["id"]
        data.issues.append(issue_id)
        data.ticket_numbers.append(made["ticketNumber"])
        for turn in range(number % 4):
            author = bot_api if turn % 2 else api
            reply(
                author,
                issue_id,
                f"Reply {turn}: {AWKWARD_TEXT[(number + turn) % len(AWKWARD_TEXT)]}",
            )
        if number % 3 == 0:
            add_note(api, issue_id, f'Internal note "{number}" \\ 🔒')
        if number % 5 == 1:
            add_note(bot_api, issue_id, "Bot note\nwith lines")
        if number % 2 == 0:
            chosen = rng.sample(data.labels, k=1 + number % 4)
            _ok(api, ADD_LABELS, {"input": {"issueId": issue_id, "labelIds": chosen}}, "addLabels")
        assignee = [
            None,
            data.members[0],
            data.machine_users[1],
            data.members[1],
            data.machine_users[0],
        ][number % 5]
        if assignee is not None:
            _ok(
                api, ASSIGN, {"input": {"issueId": issue_id, "assigneeId": assignee}}, "assignIssue"
            )
        status = list(STATUS_PATHS)[number % len(STATUS_PATHS)]
        for step in STATUS_PATHS[status]:
            changed = update(api, issue_id, status=step)
            assert changed["error"] is None, changed

    # A merge: a duplicate into another open issue.
    _ok(
        api,
        MERGE,
        {"input": {"sourceId": data.issues[7], "targetId": data.issues[1]}},
        "mergeIssue",
    )
    # A label that was on issues and is gone.
    _ok(api, DELETE_LABEL, {"id": data.labels[3]}, "deleteLabel")

    for title, text, article_status in [
        ('Published "guide"', "How to\nrestart 🔁 the printer \\", "published"),
        ("Draft ✏️", "Not yet", None),
        ("Ελληνικά", "", "draft"),
    ]:
        made = _ok(
            api,
            CREATE_ARTICLE,
            {"input": {"title": title, "body": text, "status": article_status}},
            "createArticle",
        )
        data.articles.append(made["article"]["id"])

    contacts = api.ok("{ contacts(first: 100) { edges { node { id email } } } }")["contacts"]
    for edge in contacts["edges"]:
        if edge["node"]["id"] not in data.contacts:
            data.contacts.append(edge["node"]["id"])
            data.emails.append(edge["node"]["email"])
    members = api.ok("{ members(first: 100) { edges { node { id } } } }")["members"]
    for edge in members["edges"]:
        if edge["node"]["id"] not in data.members:
            data.members.append(edge["node"]["id"])

    read = api.ok(
        CURSORS, {"issue": data.issues[1], "contact": data.contacts[1], "account": data.accounts[0]}
    )
    for connection in [
        read["asc"],
        read["desc"],
        read["byUpdate"],
        read["issue"]["messages"],
        read["contact"]["issues"],
        read["account"]["contacts"],
        read["account"]["issues"],
    ]:
        data.cursors.extend(edge["cursor"] for edge in connection["edges"])

    data.keys.append(("Full access", ("full_access",), workspace.key))
    data.keys.append(("Read-only", tuple(READ_SCOPES), workspace.create_key(READ_SCOPES)))
    for scope in ("issues:read", "contacts:read"):
        data.keys.append((scope, (scope,), workspace.create_key([scope])))
    for _ in range(4):
        subset = sorted(rng.sample(READ_SCOPES, k=rng.randint(1, len(READ_SCOPES) - 1)))
        data.keys.append(("subset", tuple(subset), workspace.create_key(subset)))
    # A key that reads nothing the compiled answers cover.
    data.keys.append(("members:read", ("members:read",), workspace.create_key(["members:read"])))
    return data
