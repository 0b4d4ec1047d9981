"""Settings, read from flags and SUPPORTDESK_* environment variables."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./data/supportdesk.db"


def normalise_database_url(url: str) -> str:
    """Accept the URLs operators write and pick the async driver we ship; ValueError for a
    database of another kind (it would otherwise be taken for PostgreSQL)."""
    for plain in ("postgresql://", "postgres://", "postgresql+psycopg://"):
        if url.startswith(plain):
            return "postgresql+asyncpg://" + url[len(plain) :]
    if url.startswith("sqlite://") and not url.startswith("sqlite+aiosqlite://"):
        return "sqlite+aiosqlite://" + url[len("sqlite://") :]
    if not url.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
        raise ValueError(
            "SQLite (sqlite:///path/to/file.db) or PostgreSQL"
            " (postgresql://user@host:5432/database) only"
        )
    return url


def parse_trusted_proxies(value: str | Iterable[str]) -> tuple[str, ...]:
    """`10.0.0.5, 10.1.0.0/16`: addresses and CIDR networks. Anything else is refused, where
    uvicorn would take it for a name that no client address ever matches."""
    entries = value.split(",") if isinstance(value, str) else value
    return tuple(_address_or_network(entry.strip()) for entry in entries if entry.strip())


def _address_or_network(entry: str) -> str:
    try:
        if "/" in entry:
            return str(ipaddress.ip_network(entry))
        return str(ipaddress.ip_address(entry))
    except ValueError as error:
        raise ValueError(
            f"{error} (trusted proxies are IP addresses and CIDR networks,"
            " e.g. 10.0.0.5,10.1.0.0/16)"
        ) from None


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SUPPORTDESK_", extra="ignore")

    database_url: str = DEFAULT_DATABASE_URL
    redis_url: str | None = None
    # Signs the settings page's session cookie; generated into the data folder when unset.
    secret_key: str | None = None
    # Where people reach the service (`https://desk.example.com`), for the links it hands
    # out (invitations, attachments); the request's own address when unset.
    base_url: str | None = None
    db_pool_size: int = Field(default=10, ge=1)
    introspection: bool = True
    # Repeated read documents answered by one SQL statement per root field whose JSON the
    # database builds (docs/compiled-queries.md).
    compiled_reads: bool = True
    max_depth: int = Field(default=12, ge=1)
    max_aliases: int = Field(default=50, ge=1)
    max_cost: int = Field(default=10_000, ge=1)
    max_directives: int = Field(default=50, ge=1)
    max_directives_per_location: int = Field(default=5, ge=1)
    max_tokens: int = Field(default=10_000, ge=100)
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    # The query text alone (variables apart), refused before it is parsed: parsing holds
    # several times a document's size in memory, where a body only has to be read.
    max_query_bytes: int = Field(default=64 * 1024, ge=1024)
    # One answer's JSON: past it, one error and no data.
    max_response_bytes: int = Field(default=10_000_000, ge=1024)
    rate_limit_per_minute: int = Field(default=600, ge=1)
    failed_auth_per_minute: int = Field(default=60, ge=1)
    # Redis keys of the rate limits start with this (several deployments may share a Redis).
    rate_limit_prefix: str = "supportdesk:ratelimit"
    # Reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed; none by
    # default, so that no client can pick its own address past the per-address limits.
    trusted_proxies: Annotated[tuple[str, ...], NoDecode] = ()
    request_timeout_seconds: float = Field(default=10.0, gt=0)
    log_json: bool = True
    # Prometheus metrics (docs/operations.md): /metrics on the public port, or on a port of
    # their own, served by `serve`'s supervisor. Neither asks for a key.
    metrics: bool = False
    metrics_port: int | None = Field(default=None, ge=1, le=65535)
    # The settings page: how long a login lasts, and how many wrong passwords are allowed
    # within the throttle window per (client address, e-mail) pair, per e-mail from any
    # address (loose: anyone may send wrong passwords for a known e-mail, and this lock
    # shuts the real person out too) and per client address.
    session_hours: float = Field(default=12, gt=0)
    login_failures_per_address_and_email: int = Field(default=10, ge=1)
    login_failures_per_email: int = Field(default=100, ge=1)
    login_failures_per_address: int = Field(default=30, ge=1)
    login_throttle_seconds: int = Field(default=900, ge=1)

    # Events and webhooks (docs/webhooks.md).
    event_retention_days: int = Field(default=30, ge=1)
    # `serve` starts a dispatcher process beside its workers unless this is off
    # (`supportdesk dispatch` then delivers, elsewhere).
    webhook_dispatch: bool = True
    # http:// and loopback/private addresses for webhook URLs (self-hosted networks, local
    # development); link-local, multicast and unspecified addresses are never allowed.
    webhook_allow_private: bool = False
    # Seconds between attempts after a failed one; the delivery fails after the last.
    webhook_retry_schedule: Annotated[tuple[float, ...], NoDecode] = (
        5,
        300,
        1800,
        7200,
        18000,
        36000,
        36000,
    )

    # The most one webhook attempt may take, connecting and the answer included; a slower
    # receiver counts as a failure.
    webhook_timeout_seconds: float = Field(default=10, gt=0)
    # How long a dispatcher holds a delivery it took: an attempt cut short by a crash is
    # sent again, by any dispatcher, when this runs out. At least the time-out plus 5 s
    # (dispatcher.LEASE_MARGIN_SECONDS), or two dispatchers may both send an attempt.
    webhook_lease_seconds: float = Field(default=60, gt=0)

    # Attachments (docs/attachments.md): the largest file, and where the bytes are kept:
    # `file://PATH` (by default the folder `attachments` beside the SQLite file, else
    # ./data/attachments) or `s3://bucket/prefix` with the AWS_* variables and, for an
    # S3-compatible store other than AWS, its endpoint.
    attachment_max_bytes: int = Field(default=25 * 1024 * 1024, ge=1)
    storage_url: str | None = None
    s3_endpoint_url: str | None = None
    # The live event stream (docs/events-stream.md): open streams per key, events a stream
    # may have waiting before its reader is cut off as too slow, and the keep-alive comment.
    event_streams_per_key: int = Field(default=10, ge=1)
    event_stream_buffer: int = Field(default=1000, ge=1)
    event_stream_keepalive_seconds: float = Field(default=15, gt=0)
    # The e-mail channel (docs/email.md): the SMTP listener's `host:port` (off when unset;
    # `serve --smtp-port`), and the largest message any door takes, raw, in bytes (larger
    # ones are refused, SMTP 552 or HTTP 413, and nothing is kept).
    smtp_listen: str | None = None
    # Where the dispatcher role sends mail: smtp://user:password@host:port (?starttls=true)
    # or smtps://…; without it replies stay queued (docs/email.md, "Sending").
    smtp_url: str | None = Field(default=None, repr=False)
    email_max_bytes: int = Field(default=25 * 1024 * 1024, ge=1024)
    # The IMAP door (docs/email.md), polled by the dispatcher role: how often each mailbox
    # with an `imapUrl` is looked at, how long one IMAP command may take, and a PEM file of
    # certificate authorities trusted besides the system's (a server with its own CA).
    imap_poll_seconds: float = Field(default=60, gt=0)
    imap_timeout_seconds: float = Field(default=30, gt=0)
    imap_ca_file: str | None = None
    # Loopback and private addresses for mailboxes' IMAP servers (a server inside your own
    # network); as for webhooks, link-local, multicast and unspecified ones never are.
    imap_allow_private: bool = False

    @field_validator("webhook_retry_schedule", mode="before")
    @classmethod
    def _retry_schedule(cls, value: str | Iterable[float]) -> tuple[float, ...]:
        entries = value.split(",") if isinstance(value, str) else value
        schedule = tuple(float(entry) for entry in entries if str(entry).strip())
        if not schedule or any(delay < 0 for delay in schedule):
            raise ValueError("a comma-separated list of delays in seconds, e.g. 5,300,1800")
        return schedule

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("an http:// or https:// address, e.g. https://desk.example.com")
        return value.strip().rstrip("/")

    @field_validator("database_url")
    @classmethod
    def _driver(cls, value: str) -> str:
        return normalise_database_url(value)

    @field_validator("redis_url")
    @classmethod
    def _redis(cls, value: str | None) -> str | None:
        if value and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("redis://host:6379/0, rediss://… (TLS) or unix:///path.sock")
        return value

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _trusted_proxies(cls, value: str | Iterable[str]) -> tuple[str, ...]:
        return parse_trusted_proxies(value)

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")
