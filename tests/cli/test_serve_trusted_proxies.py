"""Whose X-Forwarded-For `supportdesk serve` believes: the proxies in
SUPPORTDESK_TRUSTED_PROXIES (or `--trusted-proxies`), and nobody by default. Otherwise any
client on the machine picks its own address past the per-address limits: the one on failed
authentications and the settings page's login throttle. uvicorn's FORWARDED_ALLOW_IPS
decides nothing."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.cli.runner import supportdesk
from tests.processes import ServeProcess, command_env, run_cli
from tests.web.settings_client import SettingsClient

pytestmark = pytest.mark.processes


FAILED_AUTH_LIMIT = 3
LOGIN_FAILURES_PER_ADDRESS = 2


@contextmanager
def serving(tmp_path: Path, *arguments: str, **environment: str) -> Iterator[ServeProcess]:
    """`supportdesk serve [arguments]` on a fresh SQLite database, with small per-address
    limits and `environment` added to its own."""
    env = command_env(
        database_url=f"sqlite:///{tmp_path}/served.db",
        failed_auth_per_minute=str(FAILED_AUTH_LIMIT),
        login_failures_per_address=str(LOGIN_FAILURES_PER_ADDRESS),
    )
    env.update(environment)
    run_cli(env, "migrate")
    serve = ServeProcess(env, arguments=arguments).start()
    try:
        yield serve.wait_ready()
    finally:
        serve.stop()


def fresh_address() -> str:
    """An address no other request of the test poses as (198.18.0.0/15 is for tests)."""
    return f"198.18.{secrets.randbelow(256)}.{secrets.randbelow(256)}"


def failed_authentication(serve: ServeProcess, forwarded_for: str) -> int:
    response = httpx.post(
        f"{serve.base_url}/graphql",
        json={"query": "{ apiInfo }"},
        headers={"Authorization": "Bearer svc_mk_not-a-key", "X-Forwarded-For": forwarded_for},
        timeout=30,
    )
    return response.status_code


def failed_login(serve: ServeProcess, forwarded_for: str) -> int:
    client = SettingsClient(serve.base_url, address=forwarded_for)
    return client.login(f"nobody-{secrets.token_hex(4)}@example.com", "a guess").status_code


@pytest.mark.parametrize(
    "environment",
    [{}, {"FORWARDED_ALLOW_IPS": "*"}],
    ids=["defaults", "FORWARDED_ALLOW_IPS=*"],
)
def test_by_default_x_forwarded_for_does_not_change_the_client_address(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    with serving(tmp_path, **environment) as serve:
        authentications = [
            failed_authentication(serve, fresh_address()) for _ in range(FAILED_AUTH_LIMIT + 1)
        ]
        logins = [
            failed_login(serve, fresh_address()) for _ in range(LOGIN_FAILURES_PER_ADDRESS + 1)
        ]
        stderr = serve.stderr

    # Every request counted against 127.0.0.1, whatever address it claimed.
    assert authentications == [401] * FAILED_AUTH_LIMIT + [429]
    assert logins == [401] * LOGIN_FAILURES_PER_ADDRESS + [429]
    assert ("FORWARDED_ALLOW_IPS is not read" in stderr) == bool(environment)


@pytest.mark.parametrize(
    ("arguments", "environment"),
    [
        ((), {"SUPPORTDESK_TRUSTED_PROXIES": "127.0.0.1"}),
        (("--trusted-proxies", "10.0.0.5, 127.0.0.0/8"), {}),
    ],
    ids=["setting", "flag with a network"],
)
def test_from_a_trusted_proxy_the_forwarded_address_is_the_client_s(
    tmp_path: Path, arguments: tuple[str, ...], environment: dict[str, str]
) -> None:
    with serving(tmp_path, *arguments, **environment) as serve:
        each_elsewhere = [
            failed_authentication(serve, fresh_address()) for _ in range(FAILED_AUTH_LIMIT + 1)
        ]
        one = fresh_address()
        all_from_one = [failed_authentication(serve, one) for _ in range(FAILED_AUTH_LIMIT + 1)]
        logins = [
            failed_login(serve, fresh_address()) for _ in range(LOGIN_FAILURES_PER_ADDRESS + 1)
        ]

    assert each_elsewhere == [401] * (FAILED_AUTH_LIMIT + 1)
    assert all_from_one == [401] * FAILED_AUTH_LIMIT + [429]
    assert logins == [401] * (LOGIN_FAILURES_PER_ADDRESS + 1)


@pytest.mark.parametrize("proxies", ["*", "proxy.internal", "10.0.0.1/24"])
def test_a_trusted_proxy_that_is_no_address_or_network_is_refused(proxies: str) -> None:
    done = supportdesk("serve", "--trusted-proxies", proxies, database_url=None)

    assert done.returncode != 0
    assert "SUPPORTDESK_TRUSTED_PROXIES" in done.stderr
    assert "Traceback" not in done.stderr
