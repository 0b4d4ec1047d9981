"""supportdesk-client: a typed Python client for supportdesk's GraphQL API.

    from supportdesk_client import Client
    client = Client("http://127.0.0.1:8000", api_key)
    issue = client.issues.create(subject=…, body=…, requester_email=…)

Every operation is a typed method of `client.graphql`; every model is in
`supportdesk_client.generated`.
"""

from .async_api import AsyncClient
from .errors import (
    ApiError,
    Forbidden,
    InvalidRequest,
    MutationError,
    NotFound,
    RateLimited,
    ServerError,
    SupportdeskError,
    Unauthenticated,
)
from .generated import (
    AccountFilter,
    ArticleFilter,
    ContactFilter,
    EventFilter,
    IssueFilter,
    IssueOrder,
    WebhookDeliveryFilter,
)
from .live import StreamReset
from .sync_api import Client
from .webhooks import EventActor, InvalidWebhook, WebhookEvent, verify_webhook

__all__ = [
    "AccountFilter",
    "ApiError",
    "ArticleFilter",
    "AsyncClient",
    "Client",
    "ContactFilter",
    "EventActor",
    "EventFilter",
    "Forbidden",
    "InvalidRequest",
    "InvalidWebhook",
    "IssueFilter",
    "IssueOrder",
    "MutationError",
    "NotFound",
    "RateLimited",
    "ServerError",
    "StreamReset",
    "SupportdeskError",
    "Unauthenticated",
    "WebhookDeliveryFilter",
    "WebhookEvent",
    "verify_webhook",
]
