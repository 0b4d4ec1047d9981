"""Labels stay few whatever clients send: operation names past a process's first few hundred,
or long ones, share one label; paths map to a handful of handlers."""

from __future__ import annotations

import pytest

from supportdesk.observability.metrics import RequestMetrics, handler_of


def test_operation_names_past_the_limit_of_distinct_names_share_one_label() -> None:
    metrics = RequestMetrics(max_operation_names=2)

    labels = [metrics.operation_label(name, "query") for name in ("A", "B", "C", "A", "D", "B")]

    assert labels == ["A", "B", "other", "A", "other", "B"]


def test_a_long_name_is_other_and_takes_no_place_among_the_names() -> None:
    metrics = RequestMetrics(max_operation_names=1)

    assert metrics.operation_label("L" * 100, "query") == "other"
    assert metrics.operation_label("L" * 99, "query") == "L" * 99


@pytest.mark.parametrize(
    ("name", "operation_type", "label"),
    [(None, None, "unknown"), (None, "query", "anonymous"), ("", "mutation", "anonymous")],
)
def test_requests_without_a_name_have_fixed_labels(
    name: str | None, operation_type: str | None, label: str
) -> None:
    assert RequestMetrics().operation_label(name, operation_type) == label


@pytest.mark.parametrize(
    ("path", "handler"),
    [
        ("/graphql", "graphql"),
        ("/v1/issues/iss_123", "rest"),
        ("/settings/api/keys", "settings"),
        ("/healthz", "health"),
        ("/readyz", "health"),
        ("/metrics", "metrics"),
        ("/inbox/issues/12", "inbox"),
        ("/login", "inbox"),
        ("/invitations/abc", "inbox"),
        ("/static/inbox.js", "inbox"),
        ("/", "other"),
        ("/graphqlx", "other"),
        ("/wp-admin/setup.php", "other"),
    ],
)
def test_paths_map_to_a_few_handlers(path: str, handler: str) -> None:
    assert handler_of(path) == handler
