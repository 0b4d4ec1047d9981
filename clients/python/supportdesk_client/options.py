"""What both clients are made of: the endpoint, the headers of every request, the retry
policy, and a result that must be there."""

from __future__ import annotations

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
    return {
        "Authorization": f"Bearer {api_key}",
        "Accept": ACCEPT,
        "User-Agent": f"supportdesk-client-python/{_client_version()}",
    }


def given(**values: Any) -> dict[str, Any]:
    """The arguments that were given: an input field sent as null may mean "clear it"."""
    return {name: value for name, value in values.items() if value is not None}


def present(value: T | None, what: str) -> T:
    """A result the service promises when it raised nothing (a payload's object when its
    `error` is null); its absence is the server's fault."""
    if value is None:
        raise ServerError("INVALID_RESPONSE", f"the answer has no {what}")
    return value
