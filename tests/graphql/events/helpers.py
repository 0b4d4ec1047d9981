"""Reading the change feed in the event tests."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient

EVENTS = """
query($first: Int, $after: String, $filter: EventFilter) {
  events(first: $first, after: $after, filter: $filter) {
    totalCount
    edges { cursor node { id type sequence createdAt apiVersion workspaceId
                          actor { type id name } data } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


def all_events(api: GraphQLClient, **filter: Any) -> list[dict[str, Any]]:
    """Every event the key may read, oldest first, paging through."""
    found: list[dict[str, Any]] = []
    after = None
    while True:
        page = api.ok(EVENTS, {"first": 100, "after": after, "filter": filter or None})["events"]
        found += [edge["node"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return found
        after = page["pageInfo"]["endCursor"]


def events_after(api: GraphQLClient, sequence: int) -> list[dict[str, Any]]:
    return all_events(api, sinceSequence=sequence)


def last_sequence(api: GraphQLClient) -> int:
    found = all_events(api)
    return found[-1]["sequence"] if found else 0


def types_of(found: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in found]
