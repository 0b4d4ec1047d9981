"""Label operations as an integration sends them."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient

LABEL_FIELDS = "id name color description createdAt updatedAt"
ERROR = "error { code message fields { field code } }"
CREATE_LABEL = f"""
mutation($input: CreateLabelInput!) {{
  createLabel(input: $input) {{ label {{ {LABEL_FIELDS} }} {ERROR} }}
}}
"""
UPDATE_LABEL = f"""
mutation($input: UpdateLabelInput!) {{
  updateLabel(input: $input) {{ label {{ {LABEL_FIELDS} }} {ERROR} }}
}}
"""
DELETE_LABEL = f"""
mutation($id: ID!) {{ deleteLabel(id: $id) {{ label {{ id name }} {ERROR} }} }}
"""
ISSUE_LABELS = "issue { id updatedAt labels { id name } } " + ERROR
ADD_LABELS = f"""
mutation($input: AddLabelsInput!) {{ addLabels(input: $input) {{ {ISSUE_LABELS} }} }}
"""
REMOVE_LABELS = f"""
mutation($input: RemoveLabelsInput!) {{ removeLabels(input: $input) {{ {ISSUE_LABELS} }} }}
"""
LABELS = """
query($first: Int, $after: String) {
  labels(first: $first, after: $after) { totalCount edges { node { id name } } }
}
"""
ISSUES_WITH_LABELS = """
query($labelIds: [ID!]) {
  issues(first: 100, filter: {labelIds: $labelIds}) {
    totalCount edges { node { id labels { name } } }
  }
}
"""


def create_label(api: GraphQLClient, name: str, **more: Any) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(CREATE_LABEL, {"input": {"name": name, **more}})["createLabel"]
    return payload


def new_label(api: GraphQLClient, name: str, **more: Any) -> dict[str, Any]:
    payload = create_label(api, name, **more)
    assert payload["error"] is None, payload
    label: dict[str, Any] = payload["label"]
    return label


def add_labels(api: GraphQLClient, issue_id: str, *label_ids: str) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(
        ADD_LABELS, {"input": {"issueId": issue_id, "labelIds": list(label_ids)}}
    )["addLabels"]
    return payload


def remove_labels(api: GraphQLClient, issue_id: str, *label_ids: str) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(
        REMOVE_LABELS, {"input": {"issueId": issue_id, "labelIds": list(label_ids)}}
    )["removeLabels"]
    return payload


def names(issue: dict[str, Any]) -> list[str]:
    return [label["name"] for label in issue["labels"]]
