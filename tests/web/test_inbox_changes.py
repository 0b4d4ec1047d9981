"""What the queue changes (CONTRACT §15): saved views, own and shared, and bulk changes
through the all-or-nothing updateIssues, with the member as the actor. Bad input answers a
message, 403 or 404, never a 500 nor a half-written change."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture
from tests.graphql.events.helpers import all_events
from tests.web.inbox_stock import Stock, stock_workspace
from tests.web.settings_client import SettingsClient, hidden_fields
from tests.web.test_inbox_queue import tickets

_SAVED = re.compile(
    r'<a href="([^"]*)"(?: aria-current="page")? title="[^"]*"><span class="view-name">([^<]+?)'
    r'</span>(?: <span class="badge">Shared</span>)?</a>'
)


@pytest.fixture
def stock(workspace: WorkspaceFixture) -> Stock:
    return stock_workspace(workspace)


def log_in(stock: Stock, email: str) -> SettingsClient:
    return SettingsClient(stock.workspace.server.base_url).logged_in(email, ADMIN_PASSWORD)


def saved_names(page: str) -> list[str]:
    nav = page[page.index('aria-label="Saved views"') :].split("</nav>")[0]
    return [name for _, name in _SAVED.findall(nav)]


def view_id(page: str, name: str) -> str:
    found = re.search(r'action="/inbox/views/(sv_[0-9A-Z]+)/delete"[^×]*Delete view ' + name, page)
    assert found, name
    return found.group(1)


def test_a_member_keeps_own_views_and_an_admin_shares_one(stock: Stock) -> None:
    agent = log_in(stock, stock.agent_email)
    admin = log_in(stock, stock.workspace.admin_email)

    saved = agent.submit(
        "/inbox/",
        "/inbox/views",
        {"name": "Urgent bugs", "view": "open", "priority": "urgent"},
    )
    shared = admin.submit(
        "/inbox/", "/inbox/views", {"name": "Billing", "view": "open", "shared": "on"}
    )

    assert saved.status_code == 303
    assert saved.headers["location"] == "/inbox/?view=open&priority=urgent"
    assert shared.status_code == 303
    assert saved_names(agent.get("/inbox/").text) == ["Billing", "Urgent bugs"]
    assert saved_names(admin.get("/inbox/").text) == ["Billing"]
    followed = agent.get("/inbox/?view=open&priority=urgent").text
    assert tickets(followed) == [stock.unassigned[0]]


def test_an_agent_cannot_share_nor_delete_a_shared_view(stock: Stock) -> None:
    agent = log_in(stock, stock.agent_email)
    admin = log_in(stock, stock.workspace.admin_email)
    admin.submit("/inbox/", "/inbox/views", {"name": "Team", "shared": "on"})
    shared_id = view_id(admin.get("/inbox/").text, "Team")

    sharing = agent.submit("/inbox/", "/inbox/views", {"name": "Mine too", "shared": "on"})
    deleting = agent.submit("/inbox/", f"/inbox/views/{shared_id}/delete")

    assert sharing.status_code == 403 and "Only an admin" in sharing.text
    assert deleting.status_code == 403
    assert saved_names(agent.get("/inbox/").text) == ["Team"]
    assert "Delete view Team" not in agent.get("/inbox/").text


def test_views_of_others_are_not_found(stock: Stock, other_workspace: WorkspaceFixture) -> None:
    agent = log_in(stock, stock.agent_email)
    admin = log_in(stock, stock.workspace.admin_email)
    agent.submit("/inbox/", "/inbox/views", {"name": "Private"})
    private_id = view_id(agent.get("/inbox/").text, "Private")
    stranger = SettingsClient(other_workspace.server.base_url).logged_in(
        other_workspace.admin_email, ADMIN_PASSWORD
    )

    by_admin = admin.submit("/inbox/", f"/inbox/views/{private_id}/delete")
    by_stranger = stranger.submit("/inbox/", f"/inbox/views/{private_id}/delete")
    made_up = agent.submit("/inbox/", "/inbox/views/sv_01JD0000000000000000000000/delete")
    not_an_id = agent.submit("/inbox/", "/inbox/views/nonsense/delete")
    deleted = agent.submit("/inbox/", f"/inbox/views/{private_id}/delete")

    assert [by_admin.status_code, by_stranger.status_code] == [404, 404]
    assert [made_up.status_code, not_an_id.status_code] == [404, 404]
    assert deleted.status_code == 303
    assert saved_names(agent.get("/inbox/").text) == []


def test_a_view_needs_a_name_of_50_characters_at_most(stock: Stock) -> None:
    agent = log_in(stock, stock.agent_email)

    empty = agent.submit("/inbox/", "/inbox/views", {"name": "  "})
    long = agent.submit("/inbox/", "/inbox/views", {"name": "x" * 51})

    assert empty.status_code == 422 and "Give the view a name" in empty.text
    assert long.status_code == 422
    assert saved_names(agent.get("/inbox/").text) == []


def bulk(client: SettingsClient, ids: list[str], **fields: str) -> httpx.Response:
    form = hidden_fields(client.get("/inbox/?view=open").text)
    data = [("csrf_token", form["csrf_token"]), ("back", "/inbox/?view=open")]
    data += [("ids", issue_id) for issue_id in ids] + list(fields.items())
    return client.post("/inbox/bulk", data)


def test_a_bulk_change_is_made_by_the_member(stock: Stock) -> None:
    agent = log_in(stock, stock.agent_email)
    chosen = [stock.ids[number] for number in stock.unassigned[:2]]
    api = stock.workspace.client()
    before = all_events(api)[-1]["sequence"]

    answer = bulk(
        agent,
        chosen,
        status="pending",
        assignee=stock.agent_id,
        add_label=stock.label_ids["bug"],
    )

    assert answer.status_code == 303
    assert answer.headers["location"] == "/inbox/?view=open"
    assert "Updated 2 issues." in agent.get("/inbox/?view=open").text
    mine = agent.get(f"/inbox/?view=mine&status=pending&label={stock.label_ids['bug']}")
    assert sorted(tickets(mine.text)) == sorted(stock.unassigned[:2])
    events = [event for event in all_events(api) if event["sequence"] > before]
    assert {event["type"] for event in events} == {
        "issue.updated",
        "issue.assigned",
        "issue.labels_changed",
    }
    assert len(events) == 6
    assert {(e["actor"]["type"], e["actor"]["id"]) for e in events} == {("member", stock.agent_id)}


def test_a_bulk_change_is_all_or_nothing(stock: Stock, other_workspace: WorkspaceFixture) -> None:
    agent = log_in(stock, stock.agent_email)
    api = stock.workspace.client()
    before = all_events(api)[-1]["sequence"]
    open_ids = [stock.ids[number] for number in stock.unassigned]
    solved_id = stock.ids[stock.solved[0]]
    foreign = stock_workspace(other_workspace)
    foreign_id = foreign.ids[foreign.unassigned[0]]

    cannot_move = bulk(agent, [*open_ids, solved_id], status="pending")
    foreign_issue = bulk(agent, [*open_ids, foreign_id], status="pending")
    unknown_label = bulk(agent, open_ids, add_label="lbl_01JD0000000000000000000000")
    unknown_person = bulk(agent, open_ids, assignee="mem_01JD0000000000000000000000")
    nothing_chosen = bulk(agent, [], status="pending")
    no_change = bulk(agent, open_ids)

    assert cannot_move.status_code == 422 and "Nothing was changed" in cannot_move.text
    # The message names the issue that refused, and only that one.
    assert f"#{stock.solved[0]} cannot take this change" in cannot_move.text
    assert foreign_issue.status_code == 404 and "not in this workspace" in foreign_issue.text
    assert unknown_label.status_code == 404
    assert unknown_person.status_code == 404
    assert nothing_chosen.status_code == 422 and "Select at least one" in nothing_chosen.text
    assert no_change.status_code == 422 and "Choose a status" in no_change.text
    assert all_events(api)[-1]["sequence"] == before
    assert sorted(tickets(agent.get("/inbox/?view=unassigned&status=new").text)) == sorted(
        stock.unassigned
    )


def _bulk_statuses(page: str) -> list[str]:
    bar = page[page.index('id="bulk"') :].split("</select>")[0]
    return re.findall(r'<option value="(\w+)">', bar)


def test_the_bar_offers_only_statuses_the_shown_issues_can_move_to(stock: Stock) -> None:
    agent = log_in(stock, stock.agent_email)

    offered = {
        view: _bulk_statuses(agent.get(f"/inbox/?view={view}").text)
        for view in ("mine", "unassigned", "open", "solved")
    }
    solved_only = _bulk_statuses(agent.get("/inbox/?view=solved&status=solved").text)
    closed_only = _bulk_statuses(agent.get("/inbox/?view=solved&status=closed").text)

    for view in ("mine", "unassigned", "open"):
        assert offered[view] == ["open", "pending", "on_hold", "solved"], view
    assert offered["solved"] == solved_only == ["open", "closed"]
    assert closed_only == []


def test_a_label_or_person_of_another_workspace_is_not_found_and_changes_nothing(
    stock: Stock, other_workspace: WorkspaceFixture
) -> None:
    # Given an agent's open issues, one carrying a label, and another workspace's label
    # and agent
    agent = log_in(stock, stock.agent_email)
    api = stock.workspace.client()
    open_ids = [stock.ids[number] for number in stock.unassigned]
    assert bulk(agent, open_ids[:1], add_label=stock.label_ids["bug"]).status_code == 303
    before = all_events(api)[-1]["sequence"]
    foreign = stock_workspace(other_workspace)

    # When the bulk bar names the foreign label or agent, beside a change of its own
    answers = {
        "added": bulk(agent, open_ids, status="pending", add_label=foreign.label_ids["bug"]),
        "removed": bulk(agent, open_ids, status="pending", remove_label=foreign.label_ids["bug"]),
        "assigned": bulk(agent, open_ids, status="pending", assignee=foreign.agent_id),
    }

    # Then each is answered 404 with what was wrong, as the issue page answers, and nothing
    # was written: no event, no issue moved, assigned or unlabelled
    assert {name: answer.status_code for name, answer in answers.items()} == {
        "added": 404,
        "removed": 404,
        "assigned": 404,
    }
    assert "not one of this workspace" in answers["added"].text
    assert "not one of this workspace" in answers["removed"].text
    assert "not a member of this workspace" in answers["assigned"].text
    assert all("Nothing was changed" in answer.text for answer in answers.values())
    assert all_events(api)[-1]["sequence"] == before
    assert sorted(tickets(agent.get("/inbox/?view=unassigned&status=new").text)) == sorted(
        stock.unassigned
    )
    labelled = agent.get(f"/inbox/?view=unassigned&label={stock.label_ids['bug']}").text
    assert tickets(labelled) == stock.unassigned[:1]


@pytest.mark.parametrize("token", [None, "", "wrong"])
def test_every_form_of_the_queue_needs_its_csrf_token(stock: Stock, token: str | None) -> None:
    agent = log_in(stock, stock.agent_email)
    agent.submit("/inbox/", "/inbox/views", {"name": "Kept"})
    kept_id = view_id(agent.get("/inbox/").text, "Kept")
    issue_id = stock.ids[stock.unassigned[0]]
    token_field = [] if token is None else [("csrf_token", token)]

    answers = [
        agent.post("/inbox/bulk", [*token_field, ("ids", issue_id), ("status", "pending")]),
        agent.post("/inbox/views", [*token_field, ("name", "Sneaky")]),
        agent.post(f"/inbox/views/{kept_id}/delete", token_field),
    ]

    assert [answer.status_code for answer in answers] == [403, 403, 403]
    page = agent.get("/inbox/?view=unassigned").text
    assert saved_names(page) == ["Kept"]
    assert 'class="pill status-new"' in page.split(f'data-ticket="{stock.unassigned[0]}"')[1]


def test_the_return_address_stays_in_the_inbox(stock: Stock) -> None:
    agent = log_in(stock, stock.agent_email)
    form = hidden_fields(agent.get("/inbox/").text)
    issue_id = stock.ids[stock.unassigned[0]]

    answer = agent.post(
        "/inbox/bulk",
        [
            ("csrf_token", form["csrf_token"]),
            ("back", "https://evil.example/inbox/"),
            ("ids", issue_id),
            ("priority", "high"),
            ("status", "open"),
        ],
    )

    assert answer.status_code == 303 and answer.headers["location"] == "/inbox/"
