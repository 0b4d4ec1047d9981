"""`supportdesk serve` delivers from a dispatcher process beside its workers, under its
supervisor: a killed dispatcher is started again, and SUPPORTDESK_WEBHOOK_DISPATCH=false
starts none."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest

from supportdesk.auth.secret_box import new_server_key
from tests.client import GraphQLClient
from tests.dispatch.helpers import create_endpoint, new_contact
from tests.dispatch.receiver import Receiver
from tests.processes import ServeProcess, command_env, run_cli

pytestmark = pytest.mark.processes

T = TypeVar("T")


def waited(found: Callable[[], T], until: Callable[[T], bool], timeout: float = 30) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = found()
        if until(value):
            return value
        assert time.monotonic() < deadline, f"still {value!r} after {timeout} s"
        time.sleep(0.05)


def serving(
    fresh_database: str, workers: int, **settings: str
) -> Iterator[tuple[ServeProcess, str]]:
    env = command_env(
        database_url=fresh_database,
        secret_key=new_server_key(),
        webhook_allow_private="true",
        **settings,
    )
    made = json.loads(
        run_cli(env, "init", "--workspace", "Served", "--admin-email", "a@example.com", "--json")
    )
    serve = ServeProcess(env, workers=workers).start().wait_ready()
    try:
        yield serve, made["api_key"]
    finally:
        serve.stop()


@pytest.fixture
def served(fresh_database: str) -> Iterator[tuple[ServeProcess, str]]:
    yield from serving(fresh_database, 1)


def test_serve_delivers_from_a_dispatcher_process_that_is_restarted_when_killed(
    served: tuple[ServeProcess, str], receiver: Receiver
) -> None:
    serve, key = served
    api = GraphQLClient(serve.base_url, key)
    create_endpoint(api, receiver.url, ["contact.created"])
    [dispatcher] = waited(serve.dispatcher_pids, lambda pids: len(pids) == 1)
    assert len(serve.worker_pids()) == 1

    new_contact(api, 1)
    receiver.wait_for(1)
    os.kill(dispatcher, signal.SIGKILL)
    [again] = waited(serve.dispatcher_pids, lambda pids: len(pids) == 1 and dispatcher not in pids)
    new_contact(api, 2)

    assert again != dispatcher
    assert {r.event["type"] for r in receiver.wait_for(2, timeout=30)} == {"contact.created"}
    assert "The dispatcher" in serve.stderr and "died" in serve.stderr


def test_without_dispatch_serve_starts_no_dispatcher(fresh_database: str) -> None:
    for serve, _ in serving(fresh_database, 2, webhook_dispatch="false"):
        waited(serve.worker_pids, lambda pids: len(pids) == 2)
        time.sleep(0.5)  # time enough for a dispatcher to have been started

        assert serve.dispatcher_pids() == []
