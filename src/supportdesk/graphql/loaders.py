"""Per-request DataLoaders: each relation loads in one statement per batch, whatever the
page size, through the domain's batch reads (`fetch(db, workspace_id, ids, *extra)`), which
run on the driver with a connection of their own: sibling fields resolve at once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import cached_property
from typing import Any

from strawberry.dataloader import DataLoader

from supportdesk.db import Database
from supportdesk.domain import (
    accounts,
    api_keys,
    articles,
    attachments,
    contacts,
    issues,
    labels,
    machine_users,
    members,
)
from supportdesk.domain.email import message_emails
from supportdesk.domain.events import queries as event_queries
from supportdesk.domain.pagination import Page, PageRequest
from supportdesk.domain.webhooks import deliveries as webhook_deliveries

# A domain batch read: values by id, for these ids and the same extra arguments.
BatchRead = Callable[..., Awaitable[dict[str, Any]]]


class Loaders:
    """Made for every request, so each loader is made on first use only: most requests
    need one or two of them.

    A key is an id, or a tuple of an id and the extra arguments of its read (a page
    request, a status): keys with the same extras are read together."""

    def __init__(self, db: Database, workspace_id: str) -> None:
        self.db = db
        self.workspace_id = workspace_id

    @cached_property
    def machine_user(self) -> DataLoader[str, machine_users.MachineUser | None]:
        return self._batch(machine_users.get_machine_users)

    @cached_property
    def keys_of_machine_user(self) -> DataLoader[tuple[str, PageRequest], Page[Any]]:
        return self._batch(api_keys.key_pages_of_machine_users)

    @cached_property
    def key_count_of_machine_user(self) -> DataLoader[str, int]:
        return self._batch(api_keys.count_keys_of_machine_users, 0)

    @cached_property
    def issue(self) -> DataLoader[str, issues.Issue | None]:
        return self._batch(issues.fetch_issues)

    @cached_property
    def contact(self) -> DataLoader[str, contacts.Contact | None]:
        return self._batch(contacts.get_contacts)

    @cached_property
    def messages(
        self,
    ) -> DataLoader[tuple[str, PageRequest] | tuple[str, PageRequest, str], Page[issues.Message]]:
        """A page of each thread; with a visibility, of its messages of that visibility."""
        return self._batch(issues.fetch_threads)

    @cached_property
    def account(self) -> DataLoader[str, accounts.Account | None]:
        return self._batch(accounts.get_accounts)

    @cached_property
    def message_count_of_visibility(self) -> DataLoader[tuple[str, str], int]:
        return self._batch(issues.count_messages_of_visibility, 0)

    @cached_property
    def label(self) -> DataLoader[str, labels.Label | None]:
        return self._batch(labels.get_labels)

    @cached_property
    def labels_of_issue(self) -> DataLoader[str, list[labels.Label]]:
        return self._batch(labels.labels_of_issues, [])

    @cached_property
    def attachments_of_message(self) -> DataLoader[str, list[attachments.Attachment]]:
        return self._batch(attachments.attachments_of_messages, [])

    @cached_property
    def email_of_message(self) -> DataLoader[str, message_emails.MessageEmail | None]:
        return self._batch(message_emails.emails_of_messages)

    @cached_property
    def person(self) -> DataLoader[str, members.Person | None]:
        """Members and machine users together: assignees, authors."""
        return self._batch(members.get_people)

    @cached_property
    def article(self) -> DataLoader[str, articles.Article | None]:
        return self._batch(articles.get_articles)

    @cached_property
    def contacts_of_account(self) -> DataLoader[tuple[str, PageRequest], Page[Any]]:
        return self._batch(contacts.contacts_of_accounts)

    @cached_property
    def contact_count_of_account(self) -> DataLoader[str, int]:
        return self._batch(contacts.count_contacts_of_accounts, 0)

    @cached_property
    def issues_of_contact(self) -> DataLoader[tuple[str, PageRequest], Page[Any]]:
        return self._batch(issues.issues_of_contacts)

    @cached_property
    def issue_count_of_contact(self) -> DataLoader[str, int]:
        return self._batch(issues.count_issues_of_contacts, 0)

    @cached_property
    def issues_of_account(self) -> DataLoader[tuple[str, PageRequest], Page[Any]]:
        return self._batch(issues.issues_of_accounts)

    @cached_property
    def issue_count_of_account(self) -> DataLoader[str, int]:
        return self._batch(issues.count_issues_of_accounts, 0)

    @cached_property
    def event(self) -> DataLoader[str, Any]:
        return self._batch(event_queries.get_events)

    @cached_property
    def deliveries_of_endpoint(
        self,
    ) -> DataLoader[tuple[str, PageRequest, str | None], Page[Any]]:
        return self._batch(webhook_deliveries.delivery_pages_of_endpoints)

    @cached_property
    def delivery_count_of_endpoint(self) -> DataLoader[tuple[str, str | None], int]:
        return self._batch(webhook_deliveries.count_deliveries_of_endpoints, 0)

    def _batch(self, fetch: BatchRead, default: Any = None) -> DataLoader[Any, Any]:
        """One read per distinct set of extras (usually one for the whole batch); an id the
        read does not return gets `default`."""

        async def load(keys: Sequence[Any]) -> list[Any]:
            groups: dict[tuple[Any, ...], list[str]] = {}
            for key in keys:
                parent, extras = (key[0], key[1:]) if isinstance(key, tuple) else (key, ())
                groups.setdefault(extras, []).append(parent)
            found: dict[Any, Any] = {}
            for extras, parents in groups.items():
                values = await fetch(self.db, self.workspace_id, parents, *extras)
                found.update({(p, *extras) if extras else p: v for p, v in values.items()})
            return [found.get(key, default) for key in keys]

        return DataLoader(load_fn=load)
