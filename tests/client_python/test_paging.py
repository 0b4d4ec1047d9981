"""The iterators walk every page of a connection."""

from __future__ import annotations

import asyncio

from supportdesk_client import AsyncClient, Client, IssueFilter, IssueOrder
from tests.conftest import WorkspaceFixture

ISSUES = 250


def _create_issues(client: Client) -> None:
    for n in range(ISSUES):
        client.issues.create(
            subject=f"Issue {n + 1}",
            body="Paging test",
            requester_email=f"requester-{n % 7}@example.com",
            priority="high" if n % 5 == 0 else "normal",
        )


def test_iterating_walks_250_issues_page_by_page(client: Client) -> None:
    _create_issues(client)

    numbers = [issue.ticket_number for issue in client.issues.iterate()]
    newest_first = [
        issue.ticket_number
        for issue in client.issues.iterate(order_by=IssueOrder.CREATED_AT_DESC, page_size=30)
    ]
    urgent = list(client.issues.iterate(filter=IssueFilter(priority=["high"]), page_size=7))

    assert numbers == list(range(1, ISSUES + 1))
    assert newest_first == list(reversed(numbers))
    assert [issue.ticket_number for issue in urgent] == list(range(1, ISSUES + 1, 5))
    assert {issue.priority for issue in urgent} == {"high"}


def test_the_async_client_walks_the_same_pages(workspace: WorkspaceFixture) -> None:
    with Client(workspace.server.base_url, workspace.key) as client:
        _create_issues(client)

    async def walk() -> list[int]:
        async with AsyncClient(workspace.server.base_url, workspace.key) as client:
            return [issue.ticket_number async for issue in client.issues.iterate(page_size=60)]

    assert asyncio.run(walk()) == list(range(1, ISSUES + 1))


def test_a_thread_is_walked_oldest_first(client: Client) -> None:
    issue = client.issues.create(
        subject="Printer", body="On fire", requester_email="moss@example.com"
    )
    for n in range(5):
        client.issues.reply(issue.id, f"Reply {n}")

    bodies = [message.body for message in client.issues.messages(issue.id, page_size=2)]

    assert bodies == ["On fire"] + [f"Reply {n}" for n in range(5)]


def test_a_page_size_of_zero_ends_at_the_empty_first_page(client: Client) -> None:
    """`first: 0` answers no edges and still says there are more: walking must not ask for
    the same empty page forever."""
    client.issues.create(subject="One", body="Only", requester_email="zero@example.com")

    assert list(client.issues.iterate(page_size=0)) == []
