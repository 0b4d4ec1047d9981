"""Every Prometheus metric of the service, defined once here (docs/operations.md lists them).

Values are recorded only while metrics are exposed (SUPPORTDESK_METRICS or
SUPPORTDESK_METRICS_PORT): `RequestMetrics` takes each answered request from the access log
(http/access_log.py), `watch_database` follows the connection pools. Under `supportdesk serve
--workers N` every worker writes its values to files in PROMETHEUS_MULTIPROC_DIR and a scrape
adds them up (exposition.py); gauges say how they combine (`multiprocess_mode`).

Labels stay few: operation names are the client's to choose, so beyond the first
MAX_OPERATION_NAMES of a process, and for names of MAX_OPERATION_NAME_LENGTH characters or
more (the access log keeps the first 100), they collapse to `other`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import Counter, Gauge, Histogram

if TYPE_CHECKING:
    from supportdesk.db import Database

REQUESTS = Counter(
    "supportdesk_http_requests",
    "Requests answered, by handler, GraphQL (or REST) operation and HTTP status; a client"
    " that went away before its answer counts under status 499.",
    ["handler", "operation", "operation_type", "status"],
)
REQUEST_SECONDS = Histogram(
    "supportdesk_http_request_duration_seconds",
    "Time from a request's arrival to its answer (requests whose client went away are left out).",
    ["handler", "operation", "operation_type"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
RATE_LIMIT_REFUSALS = Counter(
    "supportdesk_rate_limit_refusals",
    "Requests refused with 429, by the limit that was spent: `key` (a key's requests a"
    " minute) or `failed_auth` (failed authentications a minute from one client address).",
    ["limiter"],
)
DB_POOL_CHECKED_OUT = Gauge(
    "supportdesk_db_pool_checked_out_connections",
    "Database connections in use, by pool: `shared` (PostgreSQL's SQLAlchemy pool) and"
    " `direct` (its hot-read pool on the driver), or SQLite's `writer` and `reader`.",
    ["pool"],
    multiprocess_mode="livesum",
)
DB_POOL_LIMIT = Gauge(
    "supportdesk_db_pool_max_connections",
    "The most connections each pool opens (over all live workers).",
    ["pool"],
    multiprocess_mode="livesum",
)
# Set by each process's webhook dispatcher (dispatch/dispatcher.py), from its start.
WEBHOOK_DELIVERIES = Counter(
    "supportdesk_webhook_deliveries",
    "Webhook delivery attempts by outcome: `succeeded`, `retrying` (failed, another attempt"
    " is scheduled), `failed` (no attempt left) or `disabled` (the endpoint answered 410).",
    ["outcome"],
)
WEBHOOK_OLDEST_PENDING_SECONDS = Gauge(
    "supportdesk_webhook_oldest_pending_delivery_age_seconds",
    "Age of the oldest pending delivery, by state: `due` (its attempt is due now: the"
    " dispatchers are behind) or `scheduled` (waiting for a retry).",
    ["state"],
    multiprocess_mode="livemax",
)

# nginx's "client closed request", as the access log writes it: no answer, and no error.
CLIENT_CLOSED_REQUEST = 499
MAX_OPERATION_NAMES = 200
MAX_OPERATION_NAME_LENGTH = 100
# Fixed labels: an operation without a name, a request that named none (not GraphQL, or
# refused before its document was read), a name past the limits; no operation type.
ANONYMOUS, UNKNOWN, OTHER, NO_TYPE = "anonymous", "unknown", "other", "none"

# Exact paths first; otherwise the first path segment decides.
_HANDLERS = {
    "graphql": "graphql",
    "v1": "rest",
    "settings": "settings",
    # The people's pages: the inbox, and the way in (logging in, choosing a workspace,
    # an invitation); their scripts and styles with them.
    "inbox": "inbox",
    "login": "inbox",
    "logout": "inbox",
    "workspace": "inbox",
    "invitations": "inbox",
    "static": "inbox",
    "healthz": "health",
    "readyz": "health",
    "metrics": "metrics",
}


def handler_of(path: str) -> str:
    """A fixed label for the part of the service that answered (`other` for the rest)."""
    segments = path.split("/", 2)
    return _HANDLERS.get(segments[1], OTHER) if len(segments) > 1 else OTHER


class RequestMetrics:
    """Records each answered request: its count, its latency, and a rate-limit refusal."""

    def __init__(self, max_operation_names: int = MAX_OPERATION_NAMES) -> None:
        self.max_operation_names = max_operation_names
        self._names: set[str] = set()
        self._counted: dict[tuple[str, str, str, int], tuple[Counter, Histogram]] = {}

    def operation_label(self, name: str | None, operation_type: str | None) -> str:
        if operation_type is None and name is None:
            return UNKNOWN
        if not name:
            return ANONYMOUS
        if name in self._names:
            return name
        if len(name) >= MAX_OPERATION_NAME_LENGTH or len(self._names) >= self.max_operation_names:
            return OTHER
        self._names.add(name)
        return name

    def finished(
        self,
        path: str,
        operation: str | None,
        operation_type: str | None,
        rate_limited_by: str | None,
        status: int,
        seconds: float,
    ) -> None:
        """One request answered (or given up by its client: status 499)."""
        handler = handler_of(path)
        label = self.operation_label(operation, operation_type)
        key = (handler, label, operation_type or NO_TYPE, status)
        children = self._counted.get(key)
        if children is None:
            children = self._counted[key] = (
                REQUESTS.labels(handler, label, key[2], str(status)),
                REQUEST_SECONDS.labels(handler, label, key[2]),
            )
        count, latency = children
        count.inc()
        if status != CLIENT_CLOSED_REQUEST:
            latency.observe(seconds)
        if rate_limited_by is not None:
            RATE_LIMIT_REFUSALS.labels(rate_limited_by).inc()


DELIVERY_OUTCOMES = ("succeeded", "retrying", "failed", "disabled")
PENDING_STATES = ("due", "scheduled")


class DeliveryMetrics:
    """A dispatcher's figures: each attempt's outcome, and how long the oldest pending
    deliveries have waited. Every series is made at once, so each is exported from the
    dispatcher's start (at 0)."""

    def __init__(self) -> None:
        self._outcomes = {name: WEBHOOK_DELIVERIES.labels(name) for name in DELIVERY_OUTCOMES}
        waiting = WEBHOOK_OLDEST_PENDING_SECONDS
        self._waiting = {name: waiting.labels(name) for name in PENDING_STATES}
        for gauge in self._waiting.values():
            gauge.set(0)

    def attempted(self, outcome: str) -> None:
        """One attempt came to `outcome` (one of DELIVERY_OUTCOMES)."""
        self._outcomes[outcome].inc()

    def waiting(self, due_seconds: float, scheduled_seconds: float) -> None:
        """Since when the oldest due delivery has been due, and the age of the oldest one
        waiting for a retry (0: none)."""
        self._waiting["due"].set(due_seconds)
        self._waiting["scheduled"].set(scheduled_seconds)


def watch_database(database: Database) -> None:
    """Keeps the pool gauges of `database` current."""
    for pool, limit in database.pool_limits.items():
        DB_POOL_LIMIT.labels(pool).set(limit)
    # Made now, so that each pool is exported from the start (at 0).
    in_use = {pool: DB_POOL_CHECKED_OUT.labels(pool) for pool in database.pool_limits}
    database.watch_pools(lambda pool, delta: in_use[pool].inc(delta))


OPEN_EVENT_STREAMS = Gauge(
    "supportdesk_event_streams_open",
    "Live event streams (GET /v1/events/stream) open now.",
    multiprocess_mode="livesum",
)
EVENT_STREAM_LAG_SECONDS = Histogram(
    "supportdesk_event_stream_lag_seconds",
    "Time from an event's recording (just before its commit) to its being written to a"
    " live stream that was waiting for it; events sent while a stream catches up on the"
    " log are left out.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)


class StreamMetrics:
    """The live streams' figures: how many are open, and how late events reach them."""

    def opened(self) -> None:
        OPEN_EVENT_STREAMS.inc()

    def closed(self) -> None:
        OPEN_EVENT_STREAMS.dec()

    def written(self, lag_seconds: float) -> None:
        EVENT_STREAM_LAG_SECONDS.observe(lag_seconds)
