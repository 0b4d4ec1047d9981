"""Labels (CONTRACT section 12): made, renamed and deleted per workspace; put on and taken
off issues, idempotently, at most 20 per issue; issues found by all of their labels."""

from __future__ import annotations

import time

from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import all_events, events_after, last_sequence, types_of
from tests.graphql.issues.helpers import new_issue, update
from tests.graphql.labels.helpers import (
    DELETE_LABEL,
    ISSUES_WITH_LABELS,
    LABELS,
    UPDATE_LABEL,
    add_labels,
    create_label,
    names,
    new_label,
    remove_labels,
)


def test_a_label_is_made_with_its_fields_and_a_gray_color_by_default(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()

    made = new_label(api, "  Bug  ", description="Something is broken")
    colored = new_label(api, "Billing", color="#1D4ED8")

    assert made["id"].startswith("lbl_")
    assert (made["name"], made["color"], made["description"]) == (
        "Bug",
        "#6b7280",
        "Something is broken",
    )
    assert colored["color"] == "#1d4ed8"
    listed = api.ok(LABELS, {"first": 10})["labels"]
    assert listed["totalCount"] == 2
    assert [edge["node"]["name"] for edge in listed["edges"]] == ["Bug", "Billing"]


def test_label_input_is_checked(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    new_label(api, "Urgent")

    cases = {
        "taken in another case": ({"name": "URGENT"}, "ALREADY_EXISTS", []),
        "no name": ({"name": "  "}, "VALIDATION_FAILED", [{"field": "name", "code": "REQUIRED"}]),
        "long name": (
            {"name": "x" * 51},
            "VALIDATION_FAILED",
            [{"field": "name", "code": "TOO_LONG"}],
        ),
        "bad color": (
            {"name": "Red", "color": "red"},
            "VALIDATION_FAILED",
            [{"field": "color", "code": "INVALID"}],
        ),
    }
    for case, (values, code, fields) in cases.items():
        name = values.pop("name")
        payload = create_label(api, name, **values)
        assert payload["label"] is None, case
        assert payload["error"]["code"] == code, case
        assert payload["error"]["fields"] == fields, case
    assert api.ok(LABELS)["labels"]["totalCount"] == 1


def test_a_label_is_renamed_but_never_onto_another_labels_name(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    bug = new_label(api, "Bug")
    new_label(api, "Feature")

    renamed = api.ok(UPDATE_LABEL, {"input": {"id": bug["id"], "name": "Defect"}})["updateLabel"]
    clash = api.ok(UPDATE_LABEL, {"input": {"id": bug["id"], "name": "feature"}})["updateLabel"]
    missing = api.ok(UPDATE_LABEL, {"input": {"id": "lbl_unknown", "name": "X"}})["updateLabel"]

    assert renamed["error"] is None and renamed["label"]["name"] == "Defect"
    assert clash["error"]["code"] == "ALREADY_EXISTS"
    assert missing["error"]["code"] == "NOT_FOUND"


def test_labels_go_on_and_off_an_issue_idempotently(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue = new_issue(api)
    bug, billing = new_label(api, "Bug"), new_label(api, "Billing")
    before = api.ok("query($id: ID!) { issue(id: $id) { updatedAt } }", {"id": issue["id"]})
    time.sleep(0.002)  # updatedAt has milliseconds

    first = add_labels(api, issue["id"], bug["id"], billing["id"])
    again = add_labels(api, issue["id"], bug["id"])
    off = remove_labels(api, issue["id"], bug["id"])
    off_again = remove_labels(api, issue["id"], bug["id"])

    assert first["error"] is None
    assert names(first["issue"]) == ["Billing", "Bug"]  # by name
    assert first["issue"]["updatedAt"] > before["issue"]["updatedAt"]
    # Nothing changed: the same answer, updatedAt included.
    assert again["issue"] == first["issue"]
    assert names(off["issue"]) == ["Billing"]
    assert off_again["issue"] == off["issue"]


def test_an_unknown_or_foreign_label_fails_the_whole_call(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    issue = new_issue(api)
    bug = new_label(api, "Bug")
    foreign = new_label(other_workspace.client(), "Bug")

    for label_id in ("lbl_01ZZZZZZZZZZZZZZZZZZZZZZZZ", foreign["id"], "not-an-id"):
        for change in (add_labels, remove_labels):
            payload = change(api, issue["id"], bug["id"], label_id)
            assert payload["issue"] is None
            assert payload["error"]["code"] == "VALIDATION_FAILED"
            assert payload["error"]["fields"] == [{"field": "labelIds", "code": "UNKNOWN"}]
    assert (
        api.ok("query($id: ID!) { issue(id: $id) { labels { id } } }", {"id": issue["id"]})[
            "issue"
        ]["labels"]
        == []
    )


def test_an_issue_carries_at_most_20_labels(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue = new_issue(api)
    made = [new_label(api, f"Label {n:02}")["id"] for n in range(21)]

    full = add_labels(api, issue["id"], *made[:20])
    refused = add_labels(api, issue["id"], made[20])
    already_on = add_labels(api, issue["id"], made[0])

    assert full["error"] is None and len(full["issue"]["labels"]) == 20
    assert refused["issue"] is None
    assert refused["error"]["code"] == "LIMIT_REACHED"
    assert already_on["error"] is None  # no change is no 21st label


def test_a_closed_issue_takes_no_label(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue = new_issue(api)
    bug = new_label(api, "Bug")
    update(api, issue["id"], status="solved")
    assert update(api, issue["id"], status="closed")["error"] is None

    payload = add_labels(api, issue["id"], bug["id"])

    assert payload["error"]["code"] == "ISSUE_CLOSED"


def test_issues_are_found_by_all_of_their_labels(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    bug, billing, vip = (new_label(api, name)["id"] for name in ("Bug", "Billing", "VIP"))
    both = new_issue(api, subject="both")["id"]
    only_bug = new_issue(api, subject="only bug")["id"]
    new_issue(api, subject="none")
    add_labels(api, both, bug, billing)
    add_labels(api, only_bug, bug)

    def found(*label_ids: str) -> tuple[int, set[str]]:
        answer = api.ok(ISSUES_WITH_LABELS, {"labelIds": list(label_ids)})["issues"]
        return answer["totalCount"], {edge["node"]["id"] for edge in answer["edges"]}

    assert found(bug) == (2, {both, only_bug})
    assert found(bug, billing) == (1, {both})
    assert found(bug, billing, bug) == (1, {both})
    assert found(vip) == (0, set())
    assert found("lbl_unknown") == (0, set())
    assert found()[0] == 3


def test_deleting_a_label_takes_it_off_every_issue(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    bug, billing = new_label(api, "Bug"), new_label(api, "Billing")
    issue = new_issue(api)
    add_labels(api, issue["id"], bug["id"], billing["id"])

    deleted = api.ok(DELETE_LABEL, {"id": bug["id"]})["deleteLabel"]
    again = api.ok(DELETE_LABEL, {"id": bug["id"]})["deleteLabel"]

    assert deleted == {"label": {"id": bug["id"], "name": "Bug"}, "error": None}
    assert again["error"]["code"] == "NOT_FOUND"
    issue_now = api.ok(
        "query($id: ID!) { issue(id: $id) { labels { name } } }", {"id": issue["id"]}
    )
    assert names(issue_now["issue"]) == ["Billing"]
    assert api.ok(LABELS)["labels"]["totalCount"] == 1


def test_each_label_change_records_its_event(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue = new_issue(api)
    since = last_sequence(api)
    bug = new_label(api, "Bug")
    api.ok(UPDATE_LABEL, {"input": {"id": bug["id"], "color": "#ff0000"}})
    add_labels(api, issue["id"], bug["id"])
    add_labels(api, issue["id"], bug["id"])  # no change, no event
    remove_labels(api, issue["id"], bug["id"])
    api.ok(DELETE_LABEL, {"id": bug["id"]})

    found = events_after(api, since)

    assert types_of(found) == [
        "label.created",
        "label.updated",
        "issue.labels_changed",
        "issue.labels_changed",
        "label.deleted",
    ]
    created, updated, added, removed, deleted = (event["data"] for event in found)
    assert created["label"]["name"] == "Bug"
    assert updated["changes"] == {"color": {"from": "#6b7280", "to": "#ff0000"}}
    assert added["issue"]["id"] == issue["id"]
    assert [label["id"] for label in added["added"]] == [bug["id"]]
    assert [label["id"] for label in added["labels"]] == [bug["id"]]
    assert (removed["added"], removed["labels"]) == ([], [])
    assert [label["id"] for label in removed["removed"]] == [bug["id"]]
    assert deleted["label"]["id"] == bug["id"]
    assert all_events(api, types=["label.created"])[-1]["data"]["label"]["id"] == bug["id"]


def test_a_read_only_key_reads_labels_and_changes_none(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue = new_issue(api)
    bug = new_label(api, "Bug")
    add_labels(api, issue["id"], bug["id"])
    reader = api.with_key(
        workspace.create_key(["issues:read", "contacts:read", "accounts:read", "articles:read"])
    )

    listed = reader.ok(LABELS)["labels"]
    on_issue = reader.ok(
        "query($id: ID!) { issue(id: $id) { labels { name } } }", {"id": issue["id"]}
    )
    refused = reader('mutation { createLabel(input: {name: "X"}) { label { id } } }')
    refused_add = reader(
        "mutation($i: ID!, $l: ID!) { addLabels(input: {issueId: $i, labelIds: [$l]}) "
        "{ issue { id } } }",
        {"i": issue["id"], "l": bug["id"]},
    )

    assert listed["totalCount"] == 1
    assert names(on_issue["issue"]) == ["Bug"]
    for answer in (refused, refused_add):
        assert answer.codes == ["FORBIDDEN"]
        assert answer.errors[0]["extensions"]["requiredScopes"] == ["issues:write"]


def test_labels_of_100_issues_cost_one_statement(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    bug, billing = new_label(api, "Bug")["id"], new_label(api, "Billing")["id"]
    for index in range(100):
        issue_id = new_issue(api, subject=f"issue {index}")["id"]
        add_labels(api, issue_id, bug, billing)
    query = "query($n: Int!) { issues(first: $n) { edges { node { id labels { name } } } } }"
    counter = workspace.server.statements

    def statements(first: int) -> int:
        api.ok(query, {"n": first})
        counter.reset()
        answer = api.ok(query, {"n": first})
        assert all(names(edge["node"]) == ["Billing", "Bug"] for edge in answer["issues"]["edges"])
        return counter.count

    assert statements(1) == statements(100)


def test_another_workspaces_label_or_issue_is_not_found(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    api, other = workspace.client(), other_workspace.client()
    theirs = new_label(other, "Theirs")
    their_issue = new_issue(other)["id"]
    mine = new_label(api, "Mine")

    renamed = api.ok(UPDATE_LABEL, {"input": {"id": theirs["id"], "name": "Taken"}})
    deleted = api.ok(DELETE_LABEL, {"id": theirs["id"]})
    added = add_labels(api, their_issue, mine["id"])
    node = api("query($id: ID!) { node(id: $id) { id } }", {"id": theirs["id"]})

    assert renamed["updateLabel"]["error"]["code"] == "NOT_FOUND"
    assert deleted["deleteLabel"]["error"]["code"] == "NOT_FOUND"
    assert added["error"]["code"] == "NOT_FOUND"
    assert node.codes == ["NOT_FOUND"]
    assert [e["node"]["name"] for e in other.ok(LABELS)["labels"]["edges"]] == ["Theirs"]


def test_more_than_20_at_once_is_refused_and_changes_nothing(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    issue_id = new_issue(api)["id"]
    made = [new_label(api, f"Label {n:02}")["id"] for n in range(21)]

    refused = add_labels(api, issue_id, *made)
    add_labels(api, issue_id, *made[:20])
    refused_later = add_labels(api, issue_id, made[20])

    assert refused["error"]["code"] == "LIMIT_REACHED"
    assert refused_later["error"]["code"] == "LIMIT_REACHED"
    labels_now = api.ok("query($id: ID!) { issue(id: $id) { labels { id } } }", {"id": issue_id})[
        "issue"
    ]["labels"]
    assert len(labels_now) == 20
    # Asking for more labels than an issue can carry matches nothing.
    assert api.ok(ISSUES_WITH_LABELS, {"labelIds": made})["issues"]["totalCount"] == 0
    assert api.ok(ISSUES_WITH_LABELS, {"labelIds": made[:20]})["issues"]["totalCount"] == 1


def test_a_closed_issue_loses_no_label_either(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue_id = new_issue(api)["id"]
    bug = new_label(api, "Bug")["id"]
    add_labels(api, issue_id, bug)
    update(api, issue_id, status="solved")
    update(api, issue_id, status="closed")

    assert remove_labels(api, issue_id, bug)["error"]["code"] == "ISSUE_CLOSED"


def test_a_long_description_is_refused(workspace: WorkspaceFixture) -> None:
    payload = create_label(workspace.client(), "Bug", description="x" * 501)

    assert payload["error"]["fields"] == [{"field": "description", "code": "TOO_LONG"}]


def test_deleting_a_label_moves_the_updated_at_of_the_issues_that_carried_it(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    bug = new_label(api, "Bug")["id"]
    carrying, other = new_issue(api)["id"], new_issue(api)["id"]
    add_labels(api, carrying, bug)
    query = "query($id: ID!) { issue(id: $id) { updatedAt } }"
    before = {i: api.ok(query, {"id": i})["issue"]["updatedAt"] for i in (carrying, other)}
    time.sleep(0.002)

    api.ok(DELETE_LABEL, {"id": bug})

    after = {i: api.ok(query, {"id": i})["issue"]["updatedAt"] for i in (carrying, other)}
    assert after[carrying] > before[carrying]
    assert after[other] == before[other]


def test_one_document_sees_each_change_it_makes(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue_id = new_issue(api)["id"]
    bug = new_label(api, "Bug")["id"]

    answer = api.ok(
        "mutation($i: ID!, $l: ID!) {"
        " on: addLabels(input: {issueId: $i, labelIds: [$l]}) { issue { labels { name } } }"
        " off: removeLabels(input: {issueId: $i, labelIds: [$l]}) { issue { labels { name } } } }",
        {"i": issue_id, "l": bug},
    )

    assert names(answer["on"]["issue"]) == ["Bug"]
    assert names(answer["off"]["issue"]) == []


def test_a_key_without_issues_read_sees_no_label(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    new_label(api, "Bug")
    contacts_only = api.with_key(workspace.create_key(["contacts:read"]))

    answer = contacts_only(LABELS)
    events = contacts_only("{ events(first: 10) { edges { node { type } } } }")

    assert answer.codes == ["FORBIDDEN"]
    assert answer.errors[0]["extensions"]["requiredScopes"] == ["issues:read"]
    assert not [e for e in events.body["data"]["events"]["edges"] if "label" in e["node"]["type"]]
