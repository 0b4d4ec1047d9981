"""Long documents that do not parse, sent to a `supportdesk serve` worker as a review sent
them (a legacy key; documents of ~0.9 MB took a worker from 235 MB to 1,389 MB): the
worker's memory stays where it was."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.processes import ServeProcess, command_env, run_cli

pytestmark = pytest.mark.slow

QUERY_LIMIT = 64 * 1024


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ServeProcess, str]]:
    """`supportdesk serve` (one worker, as deployed) and a legacy key of its workspace."""
    env = command_env(database_url=f"sqlite:///{tmp_path}/served.db")
    initialised = run_cli(env, "init", "--workspace", "Served", "--admin-email",
                          "ops@example.com", "--admin-password", "a long password", "--json")  # fmt: skip
    workspace_id = json.loads(initialised)["workspace_id"]
    legacy = run_cli(env, "keys", "create", "--workspace", workspace_id, "--name", "old",
                     "--legacy", "--json")  # fmt: skip
    serve = ServeProcess(env).start()
    try:
        yield serve.wait_ready(), json.loads(legacy)["api_key"]
    finally:
        serve.stop()


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def literal_where_a_name_belongs(n: int, size: int) -> str:
    """One string literal the size of the document, which the parser's error quotes."""
    return '{ apiInfo "' + "A" * (size - 30) + f'{n:08d}" }}'


def list_left_open(n: int, size: int) -> str:
    """Hundreds of strings (each a token of the parser's chain) and no end."""
    item = f'"{n:08d}{"B" * 90}" '
    return "{ issues(filter: {query: [" + item * ((size - 40) // len(item))


def test_broken_documents_leave_the_workers_memory_flat(served: tuple[ServeProcess, str]) -> None:
    serve, key = served
    near_the_limit = [
        make(n, QUERY_LIMIT - 200)
        for n in range(75)
        for make in (literal_where_a_name_belongs, list_left_open)
    ]
    near_the_body_limit = [literal_where_a_name_belongs(n, 900_000) for n in range(30)]
    with httpx.Client(
        base_url=serve.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120
    ) as client:

        def send(document: str) -> httpx.Response:
            return client.post("/graphql", json={"query": document})

        for n in range(5):  # warm: what the first requests allocate for good
            send(literal_where_a_name_belongs(10_000 + n, QUERY_LIMIT - 200))
            send(list_left_open(10_000 + n, QUERY_LIMIT - 200))
            send(literal_where_a_name_belongs(10_000 + n, 900_000))
        before = resident_mb(serve.pid)

        parsed = [send(document) for document in near_the_limit]
        refused = [send(document) for document in near_the_body_limit]

        grown = resident_mb(serve.pid) - before
    assert grown < 50, f"the worker grew by {grown:.0f} MB"
    assert {answer.json()["errors"][0]["extensions"]["code"] for answer in parsed} == {
        "GRAPHQL_PARSE_FAILED"
    }
    assert all(len(answer.content) < 1000 for answer in parsed)
    assert {answer.status_code for answer in refused} == {400}
    assert {answer.json()["errors"][0]["extensions"]["limit"] for answer in refused} == {
        "query_bytes"
    }
