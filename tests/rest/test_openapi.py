"""GET /v1/openapi.json: a valid OpenAPI 3.1 document, served without a key, whose limits
are the domain's and whose operations are the ones served."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from supportdesk.auth.permissions import PERMISSIONS
from supportdesk.config import Settings
from supportdesk.domain.email.pipeline import APPENDED, CREATED, IGNORED, PARKED
from supportdesk.domain.idempotency import MAX_KEY_LENGTH
from supportdesk.domain.issues.actions import MAX_BODY, MAX_NAME, MAX_SUBJECT
from supportdesk.domain.issues.workflow import PRIORITIES, STATUSES
from supportdesk.domain.validation import MAX_EMAIL
from supportdesk.rest.openapi import openapi_document
from supportdesk.rest.schemas import BODY_FIELDS
from tests.servers import RunningServer


@pytest.fixture
def document(server: RunningServer) -> dict[str, Any]:
    response = httpx.get(f"{server.base_url}/v1/openapi.json", timeout=30)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    served: dict[str, Any] = response.json()
    return served


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    validate(document)

    assert document["openapi"].startswith("3.1")


def test_the_validator_would_catch_a_broken_document(document: dict[str, Any]) -> None:
    del document["paths"]["/v1/issues"]["post"]["responses"]["201"]["description"]

    with pytest.raises(OpenAPIValidationError):
        validate(document)


def test_the_served_document_is_the_one_in_the_code(document: dict[str, Any]) -> None:
    assert document == openapi_document()


def test_the_operations_are_the_ones_of_the_permission_table(document: dict[str, Any]) -> None:
    operations = {
        f"REST.{operation['operationId']}": operation.get("security", document["security"])
        for path in document["paths"].values()
        for operation in path.values()
    }
    by_key = {name for name, security in operations.items() if security == [{"bearer": []}]}

    assert by_key == {name for name in PERMISSIONS if name.startswith("REST.")}
    # The one operation outside the table: a mailbox's inbound token admits it, not a key.
    assert set(operations) - by_key == {"REST.receiveInboundEmail"}
    assert operations["REST.receiveInboundEmail"] == [{"mailboxToken": []}]
    assert PERMISSIONS["REST.createIssue"] == PERMISSIONS["Mutation.createIssue"]
    assert PERMISSIONS["REST.getIssue"] == PERMISSIONS["Query.issue"]


def test_each_401_documents_the_www_authenticate_it_is_sent_with(
    server: RunningServer, document: dict[str, Any]
) -> None:
    # Given the 401 of a key's operation and that of the e-mail door, as documented
    by_key = document["components"]["responses"]["Unauthenticated"]["headers"]
    by_token = document["paths"]["/v1/inbound-email"]["post"]["responses"]["401"]["headers"]

    # When each is asked without a credential
    no_key = httpx.get(f"{server.base_url}/v1/issues/iss_01M84ZTS0570QPAA0NNCNVXZXE", timeout=30)
    no_token = httpx.post(
        f"{server.base_url}/v1/inbound-email",
        content=b"Subject: hi\r\n\r\nhi\r\n",
        headers={"Content-Type": "message/rfc822"},
        timeout=30,
    )

    # Then the document says, in words and in its schema, exactly the header each sends
    assert (no_key.status_code, no_token.status_code) == (401, 401)
    for headers, answer in ((by_key, no_key), (by_token, no_token)):
        sent = answer.headers["www-authenticate"]
        assert headers["WWW-Authenticate"]["schema"]["const"] == sent
        assert headers["WWW-Authenticate"]["description"] == f"Always `{sent}`."
    assert no_key.headers["www-authenticate"] == "Bearer"
    assert no_token.headers["www-authenticate"] == 'Bearer realm="inbound-email"'


def test_the_limits_are_the_domains(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    body = schemas["CreateIssueRequest"]["properties"]

    assert set(body) == set(BODY_FIELDS)
    assert schemas["CreateIssueRequest"]["required"] == ["subject", "body", "requester_email"]
    assert body["subject"]["maxLength"] == MAX_SUBJECT
    assert body["body"]["maxLength"] == MAX_BODY
    assert body["requester_email"]["maxLength"] == MAX_EMAIL
    assert body["requester_name"]["maxLength"] == MAX_NAME
    assert body["priority"]["enum"] == [*PRIORITIES, None]
    assert schemas["Issue"]["properties"]["status"]["enum"] == list(STATUSES)
    idempotency = document["components"]["parameters"]["IdempotencyKey"]
    assert idempotency["schema"]["maxLength"] == MAX_KEY_LENGTH


def test_every_operation_names_its_failures(document: dict[str, Any]) -> None:
    create = document["paths"]["/v1/issues"]["post"]["responses"]
    get = document["paths"]["/v1/issues/{id}"]["get"]["responses"]

    assert set(create) == {"201", "400", "401", "403", "405", "413", "415", "422", "429", "500"}
    assert set(get) == {"200", "401", "403", "404", "405", "422", "429", "500"}
    assert document["security"] == [{"bearer": []}]
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"


def test_the_http_door_of_e_mail_is_described(document: dict[str, Any]) -> None:
    operation = document["paths"]["/v1/inbound-email"]["post"]
    result = document["components"]["schemas"]["InboundEmailResult"]
    scheme = document["components"]["securitySchemes"]["mailboxToken"]
    limit = Settings.model_fields["email_max_bytes"].default

    assert list(operation["requestBody"]["content"]) == ["message/rfc822"]
    assert f"{limit:,} bytes" in operation["requestBody"]["description"]
    assert set(operation["responses"]) == {
        "200", "202", "400", "401", "405", "413", "415", "429", "500"
    }  # fmt: skip
    assert operation["responses"]["401"]["headers"]["WWW-Authenticate"]["required"] is True
    assert result["properties"]["status"]["enum"] == [CREATED, APPENDED, IGNORED, PARKED]
    assert set(result["required"]) == set(result["properties"])
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    assert "mbt_" in scheme["description"]
