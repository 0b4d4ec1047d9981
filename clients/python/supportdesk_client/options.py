"""What both clients are made of: the endpoint, the headers of every request, the retry
policy, and a result that must be there."""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version
from typing import Any, TypeVar

from .errors import ServerError
from .transport import ACCEPT

T = TypeVar("T")

DEFAULT_TIMEOUT_SECONDS = 30.0


def _client_version() -> str:
    try:
        return version("supportdesk-client")
    except PackageNotFoundError:  # run from a source tree
        return "0"


def endpoint(url: str) -> str:
    """The GraphQL endpoint of a server's address: `http://host:8000` and
    `http://host:8000/graphql` both name it."""
    url = url.rstrip("/")
    return url if url.endswith("/graphql") else f"{url}/graphql"


def headers(api_key: str) -> dict[str, str]:
    """The headers of every request. A key read from a file may end in a newline: it is
    trimmed. An empty key, or one no header can carry, is refused here, and never echoed
    (httpx's own refusal would print the secret)."""
    key = api_key.strip()
    if not key or not key.isprintable() or not key.isascii():
        raise ValueError("api_key must be the key's secret, e.g. svc_mk_…, on one line")
    return {
        "Authorization": f"Bearer {key}",
        "Accept": ACCEPT,
        "User-Agent": f"supportdesk-client-python/{_client_version()}",
    }


def given(**values: Any) -> dict[str, Any]:
    """The arguments that were given: an input field sent as null may mean "clear it"."""
    return {name: value for name, value in values.items() if value is not None}


def listed(values: Iterable[str] | None) -> list[str] | None:
    """A list input from any iterable the caller gave; None when none was given."""
    return list(values) if values is not None else None


def present(value: T | None, what: str) -> T:
    """A result the service promises when it raised nothing (a payload's object when its
    `error` is null); its absence is the server's fault."""
    if value is None:
        raise ServerError("INVALID_RESPONSE", f"the answer has no {what}")
    return value
