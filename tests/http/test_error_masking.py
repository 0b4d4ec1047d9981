"""The unexpected: the client sees a masked INTERNAL_SERVER_ERROR with the request id, the
log has the whole traceback, and no log line ever holds a key's secret."""

from __future__ import annotations

import logging

import httpx
import pytest
from sqlalchemy import text

from supportdesk.logs import JsonFormatter
from tests.conftest import make_workspace
from tests.servers import RunningServer

MASKED = {"message": "Internal server error.", "code": "INTERNAL_SERVER_ERROR"}


def rename_table(server: RunningServer, table: str) -> None:
    """Damage the database under the running server, as a botched migration might."""

    async def rename() -> None:
        async with server.db.transaction() as connection:
            await connection.execute(text(f"ALTER TABLE {table} RENAME TO {table}_gone"))

    server.call(rename())


def error_records(caplog: pytest.LogCaptureFixture, request_id: str) -> list[logging.LogRecord]:
    """Errors logged for one request (logged before its answer goes out)."""
    return [
        r
        for r in caplog.records
        if r.levelno >= logging.ERROR and getattr(r, "fields", {}).get("request_id") == request_id
    ]


def test_an_error_while_executing_is_masked_and_logged_with_its_traceback(
    breakable_server: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    api = make_workspace(breakable_server).client()
    rename_table(breakable_server, "audit_events")

    answer = api("{ apiInfo auditEvents { totalCount } }")

    assert answer.status == 200
    assert answer.data["apiInfo"]["workspace"]["name"] == "Test workspace"
    assert answer.data["auditEvents"] is None
    [error] = answer.errors
    request_id = answer.headers["x-request-id"]
    assert error["message"] == MASKED["message"]
    assert error["extensions"] == {"code": MASKED["code"], "requestId": request_id}
    assert error["path"] == ["auditEvents"]
    assert "audit_events" not in str(answer.body)
    [record] = error_records(caplog, request_id)
    line = JsonFormatter().format(record)
    assert record.name == "supportdesk.graphql"
    assert f'"request_id":"{request_id}"' in line
    assert "Traceback (most recent call last)" in line
    assert "audit_events" in line


def test_an_error_outside_execution_answers_a_json_500_never_plain_text(
    breakable_server: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    workspace = make_workspace(breakable_server)
    rename_table(breakable_server, "workspaces")  # authentication itself now fails

    response = httpx.post(
        f"{breakable_server.base_url}/graphql",
        json={"query": "{ apiInfo }"},
        headers={"Authorization": f"Bearer {workspace.key}"},
    )

    request_id = response.headers["x-request-id"]
    assert response.status_code == 500
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {
        "errors": [
            {
                "message": MASKED["message"],
                "extensions": {"code": MASKED["code"], "requestId": request_id},
            }
        ]
    }
    assert "workspaces" not in response.text
    [record] = error_records(caplog, request_id)
    line = JsonFormatter().format(record)
    assert record.name == "supportdesk.http"
    assert f'"request_id":"{request_id}"' in line
    assert "Traceback (most recent call last)" in line
    assert "workspaces" in line


def test_no_log_line_holds_a_secret(
    breakable_server: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    workspace = make_workspace(breakable_server)
    api = workspace.client()
    owner = api.ok("{ apiInfo }")["apiInfo"]["machineUser"]["id"]
    created = api.ok(
        "mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) "
        "{ secret apiKey { id } error { code } } }",
        {"input": {"machineUserId": owner, "name": "logged?", "scopes": ["audit:read"]}},
    )["createApiKey"]
    new_secret = created["secret"]
    api.ok("{ auditEvents { totalCount } }", key=new_secret)
    api.ok(
        "mutation ($id: ID!) { revokeApiKey(id: $id) { error { code } } }",
        {"id": created["apiKey"]["id"]},
    )
    revoked = api("{ apiInfo }", key=new_secret)
    unknown = api(
        "{ apiInfo }", key=workspace.key[:-1] + ("A" if workspace.key[-1] != "A" else "B")
    )
    smuggled = api("query Q($k: String) { apiInfo }", {"k": workspace.key}, operationName="Q")
    rename_table(breakable_server, "audit_events")
    broken = api("{ auditEvents { totalCount } }")

    assert revoked.status == 401 and unknown.status == 401 and smuggled.status == 200
    assert broken.codes == ["INTERNAL_SERVER_ERROR"]
    formatter = JsonFormatter()
    lines = [formatter.format(record) for record in caplog.records]
    access = [r for r in caplog.records if r.name == "supportdesk.access"]
    assert len(access) >= 5
    assert any(getattr(r, "fields", {}).get("key_prefix") == workspace.key[:12] for r in access)
    for secret in (workspace.key, new_secret):
        assert not [line for line in lines if secret in line]
        assert not [line for line in lines if secret[12:] in line]
