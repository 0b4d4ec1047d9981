"""Per-request DataLoaders: relations load in one statement per batch, whatever the page
size. Each batch takes its own pooled connection, since sibling fields resolve at once
(issues and threads through the domain's `fetch_*`, which pick the connection themselves)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import cached_property
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection
from strawberry.dataloader import DataLoader

from supportdesk.db import Database
from supportdesk.domain import accounts, api_keys, articles, contacts, issues, machine_users
from supportdesk.domain.events import queries as event_queries
from supportdesk.domain.pagination import Page, PageRequest
from supportdesk.domain.webhooks import deliveries as webhook_deliveries

K = TypeVar("K")
V = TypeVar("V")


class Loaders:
    """Made for every request, so each loader is made on first use only: most requests
    need one or two of them."""

    def __init__(self, db: Database, workspace_id: str) -> None:
        self.db = db
        self.workspace_id = workspace_id

    @cached_property
    def machine_user(self) -> DataLoader[Any, Any]:
        return self._by_key(machine_users.get_machine_users)

    @cached_property
    def keys_of_machine_user(self) -> DataLoader[tuple[str, PageRequest], Page[Any]]:
        return self._paged(api_keys.key_pages_of_machine_users)

    @cached_property
    def key_count_of_machine_user(self) -> DataLoader[Any, Any]:
        return self._by_key(api_keys.count_keys_of_machine_users, int)

    @cached_property
    def issue(self) -> DataLoader[str, issues.Issue | None]:
        return DataLoader(load_fn=self._load_issues)

    @cached_property
    def contact(self) -> DataLoader[Any, Any]:
        return self._by_key(contacts.get_contacts)

    @cached_property
    def messages(self) -> DataLoader[tuple[str, PageRequest], Page[issues.Message]]:
        return DataLoader(load_fn=self._load_messages)

    @cached_property
    def account(self) -> DataLoader[Any, Any]:
        return self._by_key(accounts.get_accounts)

    @cached_property
    def article(self) -> DataLoader[Any, Any]:
        return self._by_key(articles.get_articles)

    @cached_property
    def contacts_of_account(self) -> DataLoader[tuple[str, PageRequest], Page[Any]]:
        return self._paged(contacts.contacts_of_accounts)

    @cached_property
    def contact_count_of_account(self) -> DataLoader[Any, Any]:
        return self._by_key(contacts.count_contacts_of_accounts, int)

    @cached_property
    def issues_of_contact(self) -> DataLoader[tuple[str, PageRequest], Page[Any]]:
        return self._paged(issues.issues_of_contacts)

    @cached_property
    def issue_count_of_contact(self) -> DataLoader[Any, Any]:
        return self._by_key(issues.count_issues_of_contacts, int)

    @cached_property
    def issues_of_account(self) -> DataLoader[tuple[str, PageRequest], Page[Any]]:
        return self._paged(issues.issues_of_accounts)

    @cached_property
    def issue_count_of_account(self) -> DataLoader[Any, Any]:
        return self._by_key(issues.count_issues_of_accounts, int)

    @cached_property
    def event(self) -> DataLoader[Any, Any]:
        return self._by_key(event_queries.get_events)

    @cached_property
    def deliveries_of_endpoint(
        self,
    ) -> DataLoader[tuple[str, PageRequest, str | None], Page[Any]]:
        async def load(keys: list[tuple[str, PageRequest, str | None]]) -> list[Page[Any]]:
            by_request: dict[tuple[PageRequest, str | None], list[str]] = {}
            for endpoint_id, request, status in keys:
                by_request.setdefault((request, status), []).append(endpoint_id)
            pages: dict[tuple[str, PageRequest, str | None], Page[Any]] = {}
            async with self.db.read() as connection:
                for (request, status), endpoint_ids in by_request.items():
                    found = await webhook_deliveries.delivery_pages_of_endpoints(
                        connection, self.workspace_id, endpoint_ids, request, status
                    )
                    pages.update({(e, request, status): page for e, page in found.items()})
            return [pages[key] for key in keys]

        return DataLoader(load_fn=load)

    @cached_property
    def delivery_count_of_endpoint(self) -> DataLoader[tuple[str, str | None], int]:
        async def load(keys: list[tuple[str, str | None]]) -> list[int]:
            counts: dict[tuple[str, str | None], int] = {}
            async with self.db.read() as connection:
                for status in {status for _, status in keys}:
                    endpoint_ids = [e for e, s in keys if s == status]
                    found = await webhook_deliveries.count_deliveries_of_endpoints(
                        connection, self.workspace_id, endpoint_ids, status
                    )
                    counts.update({(e, status): n for e, n in found.items()})
            return [counts[key] for key in keys]

        return DataLoader(load_fn=load)

    async def _load_issues(self, keys: list[str]) -> list[issues.Issue | None]:
        found = await issues.fetch_issues(self.db, self.workspace_id, keys)
        return [found.get(key) for key in keys]

    async def _load_messages(
        self, keys: list[tuple[str, PageRequest]]
    ) -> list[Page[issues.Message]]:
        """One statement per distinct page request (usually one for the whole list)."""
        by_request: dict[PageRequest, list[str]] = {}
        for issue_id, request in keys:
            by_request.setdefault(request, []).append(issue_id)
        pages: dict[tuple[str, PageRequest], Page[issues.Message]] = {}
        for request, issue_ids in by_request.items():
            found = await issues.fetch_threads(self.db, self.workspace_id, issue_ids, request)
            pages.update({(issue_id, request): page for issue_id, page in found.items()})
        return [pages[key] for key in keys]

    def _paged(
        self,
        fetch: Callable[
            [AsyncConnection, str, Sequence[str], PageRequest], Awaitable[dict[str, Page[Any]]]
        ],
    ) -> DataLoader[tuple[str, PageRequest], Page[Any]]:
        """Pages of children keyed by (parent id, page request): one statement per distinct
        page request, usually one for the whole list of parents."""

        async def load(keys: list[tuple[str, PageRequest]]) -> list[Page[Any]]:
            by_request: dict[PageRequest, list[str]] = {}
            for parent_id, request in keys:
                by_request.setdefault(request, []).append(parent_id)
            pages: dict[tuple[str, PageRequest], Page[Any]] = {}
            async with self.db.read() as connection:
                for request, parent_ids in by_request.items():
                    found = await fetch(connection, self.workspace_id, parent_ids, request)
                    pages.update({(parent, request): page for parent, page in found.items()})
            return [pages[key] for key in keys]

        return DataLoader(load_fn=load)

    def _by_key(
        self,
        fetch: Callable[[AsyncConnection, str, Sequence[Any]], Awaitable[dict[Any, Any]]],
        default: Callable[[], Any] | None = None,
    ) -> DataLoader[Any, Any]:
        async def load(keys: list[Any]) -> list[Any]:
            async with self.db.read() as connection:
                found = await fetch(connection, self.workspace_id, keys)
            return [found.get(key, default() if default else None) for key in keys]

        return DataLoader(load_fn=load)

    async def run(self, read: Callable[[AsyncConnection], Awaitable[V]]) -> V:
        """One read on a connection of its own (for root lists and counts)."""
        async with self.db.read() as connection:
            return await read(connection)
