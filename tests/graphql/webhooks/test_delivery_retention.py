"""Deliveries are kept 30 days like events: retention removes finished ones made before,
in every workspace, and keeps a delivery still pending however old it is."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from supportdesk.db.tables import webhook_deliveries
from supportdesk.domain.events.retention import remove_expired
from supportdesk.domain.ids import new_id
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import CREATE as CREATE_ISSUE
from tests.graphql.webhooks.helpers import DELIVERIES, new_endpoint


def delivery_ids(api: GraphQLClient) -> list[str]:
    endpoint = api.ok(DELIVERIES, {"first": 100})["webhookEndpoints"]["edges"][0]["node"]
    return [edge["node"]["id"] for edge in endpoint["deliveries"]["edges"]]


def some_deliveries(api: GraphQLClient, issues: int) -> list[str]:
    """An endpoint taking issue.created, and a pending delivery per new issue (the test
    servers do not send them), oldest first."""
    new_endpoint(api, eventTypes=["issue.created"])
    for n in range(issues):
        issue = {"subject": f"Issue {n}", "body": "b", "requesterEmail": "ada@example.com"}
        assert api.ok(CREATE_ISSUE, {"input": issue})["createIssue"]["error"] is None
    return list(reversed(delivery_ids(api)))


def make_old(workspace: WorkspaceFixture, delivery_id: str, days: int, status: str) -> str:
    """Give the delivery the id and age of one made `days` ago, and `status`; its new id."""
    made = datetime.now(UTC) - timedelta(days=days)
    old_id = new_id("WebhookDelivery", made)

    async def rewrite() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.execute(
                update(webhook_deliveries)
                .where(
                    webhook_deliveries.c.workspace_id == workspace.id,
                    webhook_deliveries.c.id == delivery_id,
                )
                .values(id=old_id, created_at=made, status=status, lease_until=None)
            )

    workspace.server.call(rewrite())
    return old_id


def test_finished_deliveries_older_than_retention_go_in_every_workspace_pending_ones_stay(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    api, other_api = workspace.client(), other_workspace.client()
    first, second, third, fourth, recent = some_deliveries(api, 5)
    [elsewhere, elsewhere_recent] = some_deliveries(other_api, 2)
    succeeded = make_old(workspace, first, 31, "succeeded")
    failed = make_old(workspace, second, 31, "failed")
    pending = make_old(workspace, third, 45, "pending")
    young = make_old(workspace, fourth, 29, "succeeded")
    gone_elsewhere = make_old(other_workspace, elsewhere, 31, "succeeded")

    removed = workspace.server.call(remove_expired(workspace.server.db, datetime.now(UTC), 30))

    assert removed >= 3  # other tests' workspaces may have their own
    kept = set(delivery_ids(api))
    assert {succeeded, failed}.isdisjoint(kept)
    assert kept == {pending, young, recent}
    assert set(delivery_ids(other_api)) == {elsewhere_recent}
    assert gone_elsewhere not in set(delivery_ids(other_api))
