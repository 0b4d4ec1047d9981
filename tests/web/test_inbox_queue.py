"""The queue at /inbox/ over HTTP (CONTRACT §15): views and their counts, filters, search,
keyset pages of 50, the rows alone for a live updater, and bad input."""

from __future__ import annotations

import html
import re

import pytest

from supportdesk.domain.issues import IssueFilter, count_issues_up_to
from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture, make_workspace
from tests.servers import RunningServer
from tests.web.inbox_stock import MINE, SOLVED, UNASSIGNED_SUBJECTS, Stock, stock_workspace
from tests.web.settings_client import SettingsClient

_TICKET = re.compile(r'<tr class="queue-row" data-ticket="(\d+)"')
_COUNT = re.compile(r'<span>([A-Za-z ]+)</span> <span class="count">(\d+)</span>')
_LINK = re.compile(r'rel="(next|prev)" href="([^"]+)"')


def tickets(page: str) -> list[int]:
    return [int(number) for number in _TICKET.findall(page)]


def counts(page: str) -> dict[str, int]:
    return {name: int(count) for name, count in _COUNT.findall(page)}


def link(page: str, rel: str) -> str | None:
    found = dict(_LINK.findall(page))
    return html.unescape(found[rel]) if rel in found else None


@pytest.fixture(scope="module")
def stock(server: RunningServer) -> Stock:
    """One stocked workspace for the tests that only read."""
    return stock_workspace(make_workspace(server))


@pytest.fixture
def agent(stock: Stock) -> SettingsClient:
    return SettingsClient(stock.workspace.server.base_url).logged_in(
        stock.agent_email, ADMIN_PASSWORD
    )


def test_each_view_shows_its_count_and_mine_is_the_default(agent: SettingsClient) -> None:
    page = agent.get("/inbox/")

    assert page.status_code == 200
    assert counts(page.text) == {
        "Mine": MINE,
        "Unassigned": len(UNASSIGNED_SUBJECTS),
        "All open": MINE + len(UNASSIGNED_SUBJECTS),
        "Solved": SOLVED,
    }
    assert '<h1 id="queue-title">Mine</h1>' in page.text
    assert len(tickets(page.text)) == 50


def test_a_views_count_stops_past_its_limit(stock: Stock) -> None:
    server, where = stock.workspace.server, IssueFilter(statuses=("new",))

    def counted(limit: int) -> int:
        return server.call(count_issues_up_to(server.db, stock.workspace.id, where, limit))

    assert counted(1000) == MINE + len(UNASSIGNED_SUBJECTS)
    assert counted(10) == 11  # past the limit: limit + 1, however many there are
    assert counted(MINE + len(UNASSIGNED_SUBJECTS)) == MINE + len(UNASSIGNED_SUBJECTS)


def test_views_list_their_issues_newest_activity_first(agent: SettingsClient, stock: Stock) -> None:
    unassigned = tickets(agent.get("/inbox/?view=unassigned").text)
    solved = tickets(agent.get("/inbox/?view=solved").text)

    # The first was labelled after the others were made: its activity is the latest.
    first, second, third = stock.unassigned
    assert unassigned == [first, third, second]
    assert sorted(solved) == sorted(stock.solved)


def test_a_row_is_a_link_named_by_ticket_number_and_subject(
    agent: SettingsClient, stock: Stock
) -> None:
    page = agent.get("/inbox/?view=unassigned").text
    number = stock.unassigned[0]

    assert (
        f'<a class="row-link" href="/inbox/issues/{number}" title="Printer on fire">'
        f'<span class="ticket">#{number}</span> <span class="subject">Printer on fire</span></a>'
    ) in page
    row = page[page.index(f'data-ticket="{number}"') :].split("</tr>")[0]
    assert "Ada" in row and "Urgent" in row and "New" in row and "billing" in row
    assert "Unassigned" in row


def test_pages_of_50_go_forward_and_back_by_cursor(agent: SettingsClient, stock: Stock) -> None:
    first = agent.get("/inbox/?view=mine").text
    second_url = link(first, "next")
    assert second_url is not None and link(first, "prev") is None
    second = agent.get(second_url).text
    back_url = link(second, "prev")
    assert back_url is not None and link(second, "next") is None
    back = agent.get(back_url).text

    assert len(tickets(first)) == 50 and len(tickets(second)) == MINE - 50
    assert sorted(tickets(first) + tickets(second)) == sorted(stock.mine)
    assert tickets(back) == tickets(first)


def test_filters_narrow_the_view(agent: SettingsClient, stock: Stock) -> None:
    bug = stock.label_ids["bug"]

    urgent = tickets(agent.get("/inbox/?view=open&priority=urgent").text)
    labelled = tickets(agent.get(f"/inbox/?view=mine&label={bug}").text)
    nobody = tickets(agent.get("/inbox/?view=open&assignee=none").text)
    theirs = tickets(agent.get(f"/inbox/?view=open&assignee={stock.agent_id}").text)
    new_in_solved = tickets(agent.get("/inbox/?view=solved&status=new").text)

    assert urgent == [stock.unassigned[0]]
    assert sorted(labelled) == sorted(stock.mine[:5])
    assert sorted(nobody) == sorted(stock.unassigned)
    assert len(theirs) == 50
    assert new_in_solved == []


def test_search_finds_issues_by_their_words(agent: SettingsClient, stock: Stock) -> None:
    found = agent.get("/inbox/?view=open&q=printer+fire")
    none = agent.get("/inbox/?view=open&q=zebra")

    assert tickets(found.text) == [stock.unassigned[0]]
    assert tickets(none.text) == [] and "No issues match these filters." in none.text


def test_the_rows_alone_answer_a_live_updater(agent: SettingsClient, stock: Stock) -> None:
    by_parameter = agent.get("/inbox/?view=unassigned&partial=rows")
    by_htmx = agent.get(
        "/inbox/?view=unassigned", headers={"HX-Request": "true", "HX-Target": "queue-rows"}
    )
    page = agent.get("/inbox/?view=unassigned").text

    for answer in (by_parameter, by_htmx):
        assert answer.status_code == 200
        assert answer.text.lstrip().startswith('<tr class="queue-row"')
        assert "<html" not in answer.text
        assert tickets(answer.text) == tickets(page)
    assert (
        '<tbody id="queue-rows" hx-get="/inbox/?view=unassigned&amp;partial=rows" '
        'hx-trigger="refresh-queue from:body"'
    ) in page


def test_a_page_costs_as_many_statements_for_50_rows_as_for_3(
    agent: SettingsClient, stock: Stock
) -> None:
    counter = stock.workspace.server.statements

    def statements(path: str) -> int:
        agent.get(path)
        counter.reset()
        assert agent.get(path).status_code == 200
        return counter.count

    assert statements("/inbox/?view=mine") == statements("/inbox/?view=unassigned")
    assert statements("/inbox/?view=mine&partial=rows") <= 6


def test_odd_addresses_fall_back_and_foreign_cursors_are_refused(
    agent: SettingsClient, stock: Stock, other_workspace: WorkspaceFixture
) -> None:
    odd = agent.get("/inbox/?view=nope&status=burning&priority=x&label=lbl_x&assignee=mem_x")
    bad_cursor = agent.get("/inbox/?view=mine&after=not-a-cursor")
    other = SettingsClient(other_workspace.server.base_url).logged_in(
        other_workspace.admin_email, ADMIN_PASSWORD
    )
    foreign_cursor = link(agent.get("/inbox/?view=mine").text, "next")
    assert foreign_cursor is not None

    assert odd.status_code == 200 and '<h1 id="queue-title">Mine</h1>' in odd.text
    assert bad_cursor.status_code == 400
    assert other.get(foreign_cursor).status_code == 400


def test_the_queue_needs_a_login(stock: Stock) -> None:
    anonymous = SettingsClient(stock.workspace.server.base_url)

    answer = anonymous.get("/inbox/")
    rows = anonymous.get("/inbox/?partial=rows")

    assert answer.status_code == 303 and answer.headers["location"] == "/login"
    assert rows.status_code == 303
