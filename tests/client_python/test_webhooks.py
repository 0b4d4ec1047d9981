"""verify_webhook checks a real delivery of the server's dispatcher, and refuses anything
else as its docstring says."""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime

import pytest
from standardwebhooks import Webhook

from supportdesk_client import Client, InvalidWebhook, verify_webhook
from supportdesk_client.generated import CreateWebhookEndpointInput
from tests.conftest import make_workspace
from tests.dispatch.receiver import Receiver
from tests.servers import RunningServer


def test_a_delivery_verifies_into_its_typed_event_and_a_changed_byte_does_not(
    strict_server: RunningServer, receiver: Receiver
) -> None:
    workspace = make_workspace(strict_server)
    with Client(strict_server.base_url, workspace.key) as client:
        endpoint = client.graphql.create_webhook_endpoint(
            CreateWebhookEndpointInput(url=receiver.url, event_types=["issue.created"])
        )
        assert endpoint is not None and endpoint.secret is not None
        issue = client.issues.create(
            subject="Printer on fire", body="It is on fire.", requester_email="moss@example.com"
        )

    delivery = receiver.wait_for(1)[0]
    event = verify_webhook(endpoint.secret, delivery.body, delivery.headers)

    assert event.type == "issue.created"
    assert event.id == delivery.headers["webhook-id"]
    assert event.workspace_id == workspace.id
    assert event.sequence is not None and event.sequence > 0
    assert event.data["issue"]["id"] == issue.id
    assert event.actor.type == "machine_user"
    altered = delivery.body.replace(b"Printer on fire", b"Printer on firE")
    with pytest.raises(InvalidWebhook):
        verify_webhook(endpoint.secret, altered, delivery.headers)
    with pytest.raises(InvalidWebhook):
        verify_webhook("whsec_" + "A" * 43 + "=", delivery.body, delivery.headers)


SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()


def signed(body: str, signature: str | None = None) -> dict[str, str]:
    """Headers of a delivery of `body`, signed with SECRET unless `signature` is given."""
    made = Webhook(SECRET).sign("evt_1", datetime.now(UTC), body)
    return {
        "webhook-id": "evt_1",
        "webhook-timestamp": str(int(time.time())),
        "webhook-signature": made if signature is None else signature,
    }


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        (b"", signed("")),  # signed, but no event
        (b"not json", signed("not json")),
        (b"{}", signed("{}", signature="garbage")),
        (b"{}", signed("{}", signature="v1,not base64!")),
        (b"\xff{}", signed("{}")),
    ],
    ids=["signed-empty", "signed-not-json", "no-version", "signature-not-base64", "not-utf-8"],
)
def test_what_is_not_a_signed_event_raises_invalid_webhook(
    body: bytes, headers: dict[str, str]
) -> None:
    with pytest.raises(InvalidWebhook):
        verify_webhook(SECRET, body, headers)


@pytest.mark.parametrize("secret", ["", "whsec_", "whsec_!!!"])
def test_a_secret_that_is_no_webhook_secret_raises_value_error(secret: str) -> None:
    # The receiver's configuration is wrong, not the delivery: not an InvalidWebhook.
    with pytest.raises(ValueError, match="whsec_") as raised:
        verify_webhook(secret, b"{}", signed("{}"))

    assert not isinstance(raised.value, InvalidWebhook)
