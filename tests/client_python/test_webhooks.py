"""verify_webhook checks a real delivery of the server's dispatcher."""

from __future__ import annotations

import pytest

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
