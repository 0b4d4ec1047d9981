"""Ticket numbers stay unique and gap-free when many clients create issues at once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import CREATE

CONCURRENT = 60


def test_concurrent_creates_get_unique_consecutive_numbers(workspace: WorkspaceFixture) -> None:
    def create(index: int) -> tuple[int, dict[str, object]]:
        with httpx.Client(base_url=workspace.server.base_url, timeout=60) as http:
            response = http.post(
                "/graphql",
                json={
                    "query": CREATE,
                    "variables": {
                        "input": {
                            "subject": f"Issue {index}",
                            "body": "Same time as everyone else.",
                            "requesterEmail": f"person{index % 7}@example.com",
                        }
                    },
                },
                headers={"Authorization": f"Bearer {workspace.key}"},
            )
        return response.status_code, response.json()

    with ThreadPoolExecutor(max_workers=CONCURRENT) as pool:
        answers = list(pool.map(create, range(CONCURRENT)))

    assert all(status == 200 for status, _ in answers), answers
    payloads = [body["data"]["createIssue"] for _, body in answers]  # type: ignore[index]
    assert all(payload["error"] is None for payload in payloads), payloads
    numbers = sorted(payload["issue"]["ticketNumber"] for payload in payloads)
    assert numbers == list(range(1, CONCURRENT + 1))
    contacts = workspace.client().ok(
        "{ issues(first: 100) { totalCount edges { node { requester { id } } } } }"
    )["issues"]
    assert contacts["totalCount"] == CONCURRENT
    assert len({edge["node"]["requester"]["id"] for edge in contacts["edges"]}) == 7
