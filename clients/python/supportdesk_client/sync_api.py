"""Client: the synchronous client. Every operation of the API is a typed method of
`client.graphql`; the namespaces (`client.issues`, …) add iterators over connections and
shortcuts for the commonest calls."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from types import TracebackType
from typing import Any

import httpx

from . import files, options
from .connections import PAGE_SIZE, walk
from .generated import (
    AccountFields,
    AccountFilter,
    ApiKeysApiKeysEdgesNode,
    ArticleFields,
    ArticleFilter,
    AttachmentFields,
    AuditEventFields,
    ContactFields,
    ContactFilter,
    CreateAttachmentUploadInput,
    CreateIssueInput,
    EventFields,
    EventFilter,
    IssueDetails,
    IssueFields,
    IssueFilter,
    IssueMessagesIssueMessages,
    IssueOrder,
    LabelFields,
    MachineUserFields,
    MemberFields,
    MessageFields,
    ReplyToIssueInput,
    UpdateIssueInput,
    WebhookDeliveriesNodeWebhookEndpoint,
    WebhookDeliveriesNodeWebhookEndpointDeliveries,
    WebhookDeliveryFields,
    WebhookDeliveryFilter,
    WebhookEndpointFields,
)
from .generated.sync_client import SyncGraphQLClient
from .live import EventStream, StreamReset
from .retries import RetryPolicy
from .webhooks import WebhookEvent


class Client:
    """`Client(url, api_key)`; `url` is the server's address (its `/graphql` endpoint is
    found from it). A call answered 429 or 503 is sent again after `Retry-After`, at most
    `max_retries` times, and never after a wait longer than `max_retry_wait` seconds."""

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        timeout: float = options.DEFAULT_TIMEOUT_SECONDS,
        max_retries: int = 3,
        max_retry_wait: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._http = httpx.Client(
            headers=options.headers(api_key), timeout=timeout, transport=transport
        )
        self._url = url
        retry = RetryPolicy(max_retries=max_retries, max_wait=max_retry_wait)
        self.graphql = SyncGraphQLClient(options.endpoint(url), self._http, retry)
        self.issues = Issues(self.graphql)
        self.labels = Labels(self.graphql)
        self.members = Members(self.graphql)
        self.contacts = Contacts(self.graphql)
        self.accounts = Accounts(self.graphql)
        self.articles = Articles(self.graphql)
        self.machine_users = MachineUsers(self.graphql)
        self.api_keys = ApiKeys(self.graphql)
        self.audit_events = AuditEvents(self.graphql)
        self.events = Events(self.graphql)
        self.webhook_endpoints = WebhookEndpoints(self.graphql)

    def api_info(self) -> dict[str, Any]:
        """The API version, the workspace, the key and its machine user."""
        info: dict[str, Any] = options.present(self.graphql.api_info(), "apiInfo")
        return info

    def upload_attachment(
        self,
        path_or_bytes: files.Source,
        file_name: str | None = None,
        content_type: str | None = None,
    ) -> AttachmentFields:
        """Upload a file (a path, read as it is sent, or bytes) in the API's two steps:
        `createAttachmentUpload`, then a PUT of the bytes to its URL. The answer's
        `content_type` is the one the service sniffed; pass its `id` in `attachment_ids`
        of a new issue, reply or note. `file_name` defaults to the path's name."""
        upload = files.Upload.of(path_or_bytes, file_name)
        request = CreateAttachmentUploadInput(
            file_name=upload.file_name,
            size_bytes=upload.size,
            **options.given(content_type=content_type),
        )
        payload = options.present(
            self.graphql.create_attachment_upload(request), "createAttachmentUpload"
        )
        url = options.present(payload.upload_url, "uploadUrl")
        headers = {"Content-Length": str(upload.size), "Content-Type": "application/octet-stream"}
        answer = self._http.put(url, content=upload.chunks(), headers=headers)
        files.raise_for_answer(answer)
        return files.attachment_of(answer.json())

    def download_attachment(
        self, attachment_or_url: AttachmentFields | str, to: files.Target
    ) -> int:
        """Write an attachment's bytes into `to` (a path, or a file opened for binary
        writing), a chunk at a time; returns how many were written. Raises NotFound for
        an attachment the key's workspace does not have."""
        target, close = files.opened(to)
        written = 0
        try:
            with self._http.stream("GET", files.download_url(attachment_or_url)) as answer:
                if not answer.is_success:
                    answer.read()
                    files.raise_for_answer(answer)
                for chunk in answer.iter_bytes(files.CHUNK_BYTES):
                    target.write(chunk)
                    written += len(chunk)
        finally:
            if close:
                target.close()
        return written

    def iter_events(
        self,
        *,
        after: int | None = None,
        types: Iterable[str] | None = None,
        max_reconnect_wait: float = 30.0,
    ) -> Iterator[WebhookEvent | StreamReset]:
        """The workspace's events as they are committed, for ever: those after sequence
        `after` first (None: from now on), then live ones; only `types` when given. A lost
        connection is made again, resuming after the last event seen, with waits growing
        up to `max_reconnect_wait` seconds. A StreamReset says that events after `after`
        were removed by retention. Raises Unauthenticated once the key is revoked."""
        return iter(EventStream(self._http, self._url, after, types, max_reconnect_wait))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class _Area:
    def __init__(self, graphql: SyncGraphQLClient) -> None:
        self.graphql = graphql


class Issues(_Area):
    def create(
        self,
        *,
        subject: str,
        body: str,
        requester_email: str,
        requester_name: str | None = None,
        priority: str | None = None,
        idempotency_key: str | None = None,
        attachment_ids: Sequence[str] | None = None,
    ) -> IssueFields:
        """A new issue. Without `idempotency_key` the client makes one: a retry of this
        call never creates a second issue. `attachment_ids`: files `upload_attachment`
        made, for the first message."""
        request = CreateIssueInput(
            subject=subject,
            body=body,
            requester_email=requester_email,
            **options.given(
                requester_name=requester_name,
                priority=priority,
                idempotency_key=idempotency_key,
                attachment_ids=options.listed(attachment_ids),
            ),
        )
        payload = options.present(self.graphql.create_issue(request), "createIssue")
        return options.present(payload.issue, "issue")

    def get(self, issue_id: str) -> IssueDetails:
        """Raises NotFound when the workspace has no such issue."""
        return options.present(self.graphql.issue(issue_id), "issue")

    def get_by_number(self, ticket_number: int) -> IssueDetails:
        return options.present(self.graphql.issue_by_number(ticket_number), "issue")

    def update(
        self,
        issue_id: str,
        *,
        subject: str | None = None,
        status: str | None = None,
        priority: str | None = None,
    ) -> IssueFields:
        """Changes what is given."""
        changes = options.given(subject=subject, status=status, priority=priority)
        request = UpdateIssueInput(id=issue_id, **changes)
        payload = options.present(self.graphql.update_issue(request), "updateIssue")
        return options.present(payload.issue, "issue")

    def reply(
        self,
        issue_id: str,
        body: str,
        *,
        status: str | None = None,
        attachment_ids: Sequence[str] | None = None,
    ) -> MessageFields:
        """A reply as the key's machine user; `status` moves the issue in the same call;
        `attachment_ids`: files `upload_attachment` made."""
        files = options.listed(attachment_ids)
        request = ReplyToIssueInput(
            issue_id=issue_id, body=body, **options.given(status=status, attachment_ids=files)
        )
        payload = options.present(self.graphql.reply_to_issue(request), "replyToIssue")
        return options.present(payload.message, "message")

    def iterate(
        self,
        *,
        filter: IssueFilter | None = None,  # the API's own name
        order_by: IssueOrder | None = None,
        page_size: int = PAGE_SIZE,
    ) -> Iterator[IssueDetails]:
        return walk(
            lambda after: self.graphql.issues(
                first=page_size, after=after, filter_=filter, order_by=order_by
            )
        )

    def messages(
        self, issue_id: str, *, visibility: str | None = None, page_size: int = PAGE_SIZE
    ) -> Iterator[MessageFields]:
        """The thread, oldest first; `visibility` "public" or "internal" keeps one kind."""

        def page(after: str | None) -> IssueMessagesIssueMessages | None:
            issue = self.graphql.issue_messages(
                issue_id, first=page_size, after=after, visibility=visibility
            )
            return options.present(issue, "issue").messages

        return walk(page)


class Labels(_Area):
    def iterate(self, *, page_size: int = PAGE_SIZE) -> Iterator[LabelFields]:
        return walk(lambda after: self.graphql.labels(first=page_size, after=after))


class Members(_Area):
    def iterate(self, *, page_size: int = PAGE_SIZE) -> Iterator[MemberFields]:
        return walk(lambda after: self.graphql.members(first=page_size, after=after))


class Contacts(_Area):
    def iterate(
        self,
        *,
        filter: ContactFilter | None = None,
        page_size: int = PAGE_SIZE,
    ) -> Iterator[ContactFields]:
        return walk(
            lambda after: self.graphql.contacts(first=page_size, after=after, filter_=filter)
        )


class Accounts(_Area):
    def iterate(
        self,
        *,
        filter: AccountFilter | None = None,
        page_size: int = PAGE_SIZE,
    ) -> Iterator[AccountFields]:
        return walk(
            lambda after: self.graphql.accounts(first=page_size, after=after, filter_=filter)
        )


class Articles(_Area):
    def iterate(
        self,
        *,
        filter: ArticleFilter | None = None,
        page_size: int = PAGE_SIZE,
    ) -> Iterator[ArticleFields]:
        return walk(
            lambda after: self.graphql.articles(first=page_size, after=after, filter_=filter)
        )


class MachineUsers(_Area):
    def iterate(self, *, page_size: int = PAGE_SIZE) -> Iterator[MachineUserFields]:
        return walk(lambda after: self.graphql.machine_users(first=page_size, after=after))


class ApiKeys(_Area):
    def iterate(
        self, *, machine_user_id: str | None = None, page_size: int = PAGE_SIZE
    ) -> Iterator[ApiKeysApiKeysEdgesNode]:
        return walk(
            lambda after: self.graphql.api_keys(
                first=page_size, after=after, machine_user_id=machine_user_id
            )
        )


class AuditEvents(_Area):
    def iterate(self, *, page_size: int = PAGE_SIZE) -> Iterator[AuditEventFields]:
        """Newest first."""
        return walk(lambda after: self.graphql.audit_events(first=page_size, after=after))


class Events(_Area):
    def iterate(
        self,
        *,
        filter: EventFilter | None = None,
        page_size: int = PAGE_SIZE,
    ) -> Iterator[EventFields]:
        """Oldest first; `filter=EventFilter(since_sequence=n)` resumes after event n."""
        return walk(lambda after: self.graphql.events(first=page_size, after=after, filter_=filter))


class WebhookEndpoints(_Area):
    def iterate(self, *, page_size: int = PAGE_SIZE) -> Iterator[WebhookEndpointFields]:
        return walk(lambda after: self.graphql.webhook_endpoints(first=page_size, after=after))

    def deliveries(
        self,
        endpoint_id: str,
        *,
        filter: WebhookDeliveryFilter | None = None,
        page_size: int = PAGE_SIZE,
    ) -> Iterator[WebhookDeliveryFields]:
        """Newest first."""

        def page(after: str | None) -> WebhookDeliveriesNodeWebhookEndpointDeliveries | None:
            endpoint = self.graphql.webhook_deliveries(
                endpoint_id, first=page_size, after=after, filter_=filter
            )
            if isinstance(endpoint, WebhookDeliveriesNodeWebhookEndpoint):
                return endpoint.deliveries
            return None  # not an endpoint: node() raised NotFound for a missing one

        return walk(page)
