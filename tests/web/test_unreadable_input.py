"""Characters no page takes: a NUL anywhere in an address or a form (PostgreSQL's text
cannot hold it, so neither backend takes it), and digits that are not ASCII where a
number is asked. Each is a 400 with a page that says so, before or after logging in;
never a 500, never a change."""

from __future__ import annotations

from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import last_sequence
from tests.web.issue_page_steps import make_agent, make_issue, thread_of
from tests.web.settings_client import SettingsClient


def test_a_nul_is_refused_before_logging_in(workspace: WorkspaceFixture) -> None:
    client = SettingsClient(workspace.server.base_url)

    answer = client.login("admin\x00@example.com", "a password of ours")

    assert answer.status_code == 400
    assert "NUL character" in answer.text


def test_a_nul_in_the_queue_or_a_form_changes_nothing(workspace: WorkspaceFixture) -> None:
    agent = make_agent(workspace)
    api = workspace.client()
    issue = make_issue(api)
    number = issue["ticketNumber"]
    before = last_sequence(api)

    answers = [
        agent.http.get("/inbox/", params={"label": "\x00"}),
        agent.http.get("/inbox/", params={"view": "open", "assignee": "\x00", "partial": "rows"}),
        agent.http.submit("/inbox/", "/inbox/views", {"name": "v", "label": "a\x00"}),
        agent.http.submit(
            f"/inbox/issues/{number}",
            f"/inbox/issues/{number}/messages",
            {"send": "note", "body": "Seen?", "seen_up_to": "\x00"},
        ),
        agent.http.submit(
            f"/inbox/issues/{number}",
            f"/inbox/issues/{number}/messages",
            {"send": "note", "body": "A note with a \x00 in it."},
        ),
    ]

    for answer in answers:
        assert answer.status_code == 400, answer.text[:300]
        assert "NUL character" in answer.text
    assert last_sequence(api) == before
    assert thread_of(api, issue["id"])["messageCount"] == 1


def test_a_ticket_number_in_other_digits_is_refused(workspace: WorkspaceFixture) -> None:
    agent = make_agent(workspace)
    api = workspace.client()
    source = make_issue(api)
    make_issue(api)
    make_issue(api)  # #3 is there: an Arabic-Indic three must not reach it

    for given in ("\u00b2", "\u0663"):
        refused = agent.post(source["ticketNumber"], "merge", {"target_number": given})

        assert refused.status_code == 400
        assert "Give the ticket number" in refused.text
    assert thread_of(api, source["id"])["status"] != "closed"
