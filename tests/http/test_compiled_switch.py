"""How a client and an operator see and steer compiled answers (docs/compiled-queries.md):
`extensions.compiled` asks which path answered or picks the executor; the access log says
it; one statement per root field; `SUPPORTDESK_COMPILED_READS=false` turns it off."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest

from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue
from tests.http.test_access_log import access_line
from tests.processes import ServeProcess, command_env, run_cli

pytestmark = pytest.mark.processes


TWO_ROOTS = """query($id: ID!, $number: Int!) {
  issue(id: $id) { id subject requester { email } messages { totalCount edges { node { body } } } }
  again: issueByNumber(ticketNumber: $number) { __typename ticketNumber }
}"""


def test_a_client_sees_and_chooses_the_path_and_the_answer_is_the_same(
    workspace: WorkspaceFixture, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="supportdesk.access")
    api = workspace.client()
    issue = new_issue(api)
    variables = {"id": issue["id"], "number": issue["ticketNumber"]}

    compiled = api(TWO_ROOTS, variables, extensions={"compiled": True})
    executed = api(TWO_ROOTS, variables, extensions={"compiled": False})
    plain = api(TWO_ROOTS, variables)

    assert compiled.body["extensions"]["compiled"] is True
    assert executed.body["extensions"]["compiled"] is False
    assert "compiled" not in plain.body["extensions"]
    assert compiled.data == executed.data == plain.data
    assert list(compiled.data) == ["issue", "again"]
    assert access_line(caplog, compiled.headers["x-request-id"])["compiled"] is True
    assert access_line(caplog, executed.headers["x-request-id"])["compiled"] is False
    mutation = api('mutation { createLabel(input: {name: "x"}) { error { code } } }')
    assert access_line(caplog, mutation.headers["x-request-id"])["compiled"] is None


def test_a_compiled_request_runs_one_statement_per_root_field(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    issue = new_issue(api)
    variables = {"id": issue["id"], "number": issue["ticketNumber"]}
    api.ok(TWO_ROOTS, variables)  # warm: the key's last-used write
    counter = workspace.server.statements
    counter.reset()

    api.ok(TWO_ROOTS, variables)

    # One statement per root field, whatever the thread or the relations: each checks the
    # key, which this process looked up at its first request.
    assert len(counter.of_requests()) == 2, counter.statements


def test_what_does_not_compile_is_answered_by_the_executor(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue = new_issue(api)
    asked = {"extensions": {"compiled": True}}
    for document in [
        "query($id: ID!) { issue(id: $id) { id subject @include(if: true) } }",
        "query($id: ID!) { issue(id: $id) { id } apiInfo }",
        "query($id: ID!) { node(id: $id) { id } }",
        # Relations four deep: past what a plan compiles.
        "query($id: ID!) { issue(id: $id) { requester { account { contacts { edges { node { account { id } } } } } } } }",
    ]:
        answer = api(document, {"id": issue["id"]}, **asked)
        assert answer.body["extensions"]["compiled"] is False, document
        assert not answer.errors
    missing = api('{ issue(id: "iss_00000000000000000000000000") { id } }', **asked)
    assert missing.codes == ["NOT_FOUND"]
    assert missing.body["extensions"]["compiled"] is False
    read_only_issues = api.with_key(workspace.create_key(["issues:read"]))
    refused = read_only_issues(
        "query($id: ID!) { issue(id: $id) { id requester { email } } }",
        {"id": issue["id"]},
        **asked,
    )
    assert refused.codes == ["FORBIDDEN"]
    assert refused.data == {"issue": {"id": issue["id"], "requester": None}}
    assert refused.body["extensions"]["compiled"] is False


def test_an_operator_turns_compiled_answers_off(tmp_path: Path) -> None:
    env = command_env(database_url=f"sqlite:///{tmp_path}/off.db", compiled_reads="false")
    made = json.loads(
        run_cli(
            env,
            "init",
            "--workspace",
            "Off",
            "--admin-email",
            "ops@example.com",
            "--admin-password",
            "a long password",
            "--json",
        )
    )
    serve = ServeProcess(env).start()
    try:
        serve.wait_ready()
        answer = httpx.post(
            f"{serve.base_url}/graphql",
            json={"query": "{ issues { totalCount } }", "extensions": {"compiled": True}},
            headers={"Authorization": f"Bearer {made['api_key']}"},
        ).json()
    finally:
        serve.stop()
    assert answer["data"] == {"issues": {"totalCount": 0}}
    assert answer["extensions"]["compiled"] is False
