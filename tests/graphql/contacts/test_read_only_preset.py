"""The Read-only preset (seed section 2: "fetch issues, contacts, accounts, articles and
more, no changes") reads all four kinds, with their relations, and changes nothing."""

from __future__ import annotations

from supportdesk.auth.scopes import PRESETS
from supportdesk.graphql.schema import build_schema
from tests.conftest import WorkspaceFixture
from tests.graphql.accounts.helpers import new_account
from tests.graphql.articles.helpers import new_article
from tests.graphql.contacts.helpers import new_contact
from tests.graphql.issues.helpers import new_issue
from tests.graphql.labels.helpers import new_label
from tests.graphql.mailboxes.helpers import new_mailbox
from tests.graphql.webhooks.helpers import RECEIVER, new_endpoint

READ_EVERYTHING = """
query($issue: ID!, $contact: ID!, $account: ID!, $article: ID!) {
  issue(id: $issue) { subject requester { email account { name } } messages { totalCount } }
  issues { totalCount }
  contact(id: $contact) { email account { name } issues { totalCount } }
  contactByEmail(email: "wile@acme.com") { id }
  contacts { totalCount }
  account(id: $account) { name contacts { totalCount } issues { totalCount } }
  accounts { totalCount }
  article(id: $article) { title status }
  articles(filter: {query: "password"}) { totalCount }
}
"""
SNAPSHOT = """
{
  issues { edges { node { id subject status priority updatedAt messageCount assignee { __typename } } } }
  members { edges { node { id name role } } }
  contacts { edges { node { id email name updatedAt account { id } } } }
  accounts { edges { node { id name domain updatedAt } } }
  articles { edges { node { id title body status updatedAt } } }
  machineUsers { edges { node { id name description } } }
  apiKeys { edges { node { id name status } } }
}
"""


def mutations(ids: dict[str, str]) -> dict[str, tuple[str, dict[str, object]]]:
    """One call of every mutation of the schema, each with input that would succeed."""

    def by_input(
        name: str, input_type: str, values: dict[str, object]
    ) -> tuple[str, dict[str, object]]:
        document = (
            f"mutation($input: {input_type}!) {{ {name}(input: $input) {{ error {{ code }} }} }}"
        )
        return document, {"input": values}

    def by_id(name: str, identifier: str) -> tuple[str, dict[str, object]]:
        return f"mutation($id: ID!) {{ {name}(id: $id) {{ error {{ code }} }} }}", {
            "id": identifier
        }

    return {
        "createIssue": by_input(
            "createIssue",
            "CreateIssueInput",
            {"subject": "s", "body": "b", "requesterEmail": "a@b.co"},
        ),
        "updateIssue": by_input(
            "updateIssue", "UpdateIssueInput", {"id": ids["issue"], "status": "open"}
        ),
        "replyToIssue": by_input(
            "replyToIssue", "ReplyToIssueInput", {"issueId": ids["issue"], "body": "hi"}
        ),
        "addNote": by_input("addNote", "AddNoteInput", {"issueId": ids["issue"], "body": "hi"}),
        "addCustomerMessage": by_input(
            "addCustomerMessage", "AddCustomerMessageInput", {"issueId": ids["issue"], "body": "hi"}
        ),
        "createAttachmentUpload": by_input(
            "createAttachmentUpload",
            "CreateAttachmentUploadInput",
            {"fileName": "a.txt", "sizeBytes": 1},
        ),
        "updateIssues": by_input(
            "updateIssues", "UpdateIssuesInput", {"ids": [ids["issue"]], "status": "open"}
        ),
        "mergeIssue": by_input(
            "mergeIssue",
            "MergeIssueInput",
            {"sourceId": ids["duplicate"], "targetId": ids["issue"]},
        ),
        "createLabel": by_input("createLabel", "CreateLabelInput", {"name": "New"}),
        "updateLabel": by_input(
            "updateLabel", "UpdateLabelInput", {"id": ids["label"], "name": "X"}
        ),
        "deleteLabel": by_id("deleteLabel", ids["label"]),
        "addLabels": by_input(
            "addLabels", "AddLabelsInput", {"issueId": ids["issue"], "labelIds": [ids["label"]]}
        ),
        "removeLabels": by_input(
            "removeLabels",
            "RemoveLabelsInput",
            {"issueId": ids["issue"], "labelIds": [ids["label"]]},
        ),
        "createContact": by_input("createContact", "CreateContactInput", {"email": "new@acme.com"}),
        "updateContact": by_input(
            "updateContact", "UpdateContactInput", {"id": ids["contact"], "name": "X"}
        ),
        "createAccount": by_input("createAccount", "CreateAccountInput", {"name": "New"}),
        "updateAccount": by_input(
            "updateAccount", "UpdateAccountInput", {"id": ids["account"], "name": "X"}
        ),
        "createArticle": by_input("createArticle", "CreateArticleInput", {"title": "New"}),
        "updateArticle": by_input(
            "updateArticle", "UpdateArticleInput", {"id": ids["article"], "title": "X"}
        ),
        "publishArticle": by_id("publishArticle", ids["article"]),
        "unpublishArticle": by_id("unpublishArticle", ids["published"]),
        "createMachineUser": by_input(
            "createMachineUser", "CreateMachineUserInput", {"name": "Bot"}
        ),
        "updateMachineUser": by_input(
            "updateMachineUser", "UpdateMachineUserInput", {"id": ids["machine_user"], "name": "X"}
        ),
        "createApiKey": by_input(
            "createApiKey",
            "CreateApiKeyInput",
            {"machineUserId": ids["machine_user"], "name": "k", "scopes": ["issues:read"]},
        ),
        "revokeApiKey": by_id("revokeApiKey", ids["api_key"]),
        "createMember": by_input(
            "createMember", "CreateMemberInput", {"email": "new@example.com", "role": "agent"}
        ),
        "updateMember": by_input(
            "updateMember", "UpdateMemberInput", {"id": ids["member"], "name": "X"}
        ),
        "removeMember": by_id("removeMember", ids["member"]),
        "assignIssue": by_input(
            "assignIssue",
            "AssignIssueInput",
            {"issueId": ids["issue"], "assigneeId": ids["member"]},
        ),
        "createWebhookEndpoint": by_input(
            "createWebhookEndpoint", "CreateWebhookEndpointInput", {"url": RECEIVER}
        ),
        "updateWebhookEndpoint": by_input(
            "updateWebhookEndpoint",
            "UpdateWebhookEndpointInput",
            {"id": ids["webhook"], "enabled": False},
        ),
        "deleteWebhookEndpoint": by_id("deleteWebhookEndpoint", ids["webhook"]),
        "rotateWebhookSecret": by_input(
            "rotateWebhookSecret", "RotateWebhookSecretInput", {"id": ids["webhook"]}
        ),
        "sendTestWebhook": by_id("sendTestWebhook", ids["webhook"]),
        "redeliverWebhookEvent": by_input(
            "redeliverWebhookEvent",
            "RedeliverWebhookEventInput",
            {"endpointId": ids["webhook"], "eventId": ids["event"]},
        ),
        "replayWebhookEvents": by_input(
            "replayWebhookEvents",
            "ReplayWebhookEventsInput",
            {"endpointId": ids["webhook"], "fromSequence": 1, "toSequence": 2},
        ),
        "createMailbox": by_input(
            "createMailbox", "CreateMailboxInput", {"address": "new-box@example.com"}
        ),
        "updateMailbox": by_input(
            "updateMailbox", "UpdateMailboxInput", {"id": ids["mailbox"], "name": "X"}
        ),
        "deleteMailbox": by_id("deleteMailbox", ids["mailbox"]),
        "rotateMailboxToken": by_id("rotateMailboxToken", ids["mailbox"]),
    }


def test_read_only_reads_all_four_kinds_and_changes_nothing(workspace: WorkspaceFixture) -> None:
    admin = workspace.client()
    account = new_account(admin, name="Acme", domain="acme.com")
    issue = new_issue(admin, requesterEmail="wile@acme.com")
    contact = new_contact(admin, email="bugs@acme.com")
    article = new_article(admin, title="Resetting your password")
    published = new_article(admin, title="Published", status="published")
    keys = admin.ok("{ apiKeys { edges { node { id machineUser { id } } } } }")["apiKeys"]
    key = keys["edges"][0]["node"]
    ids = {
        "issue": issue["id"],
        "label": new_label(admin, "Bug")["id"],
        "contact": contact["id"],
        "account": account["id"],
        "article": article["id"],
        "published": published["id"],
        "api_key": key["id"],
        "machine_user": key["machineUser"]["id"],
        "member": workspace.made.admin.id,
        "webhook": new_endpoint(admin)["webhookEndpoint"]["id"],
        "mailbox": new_mailbox(admin)["mailbox"]["id"],
        "event": admin.ok("{ events(first: 1) { edges { node { id } } } }")["events"]["edges"][0][
            "node"
        ]["id"],
    }
    reader = workspace.client(workspace.create_key(list(PRESETS["read_only"])))
    before = admin.ok(SNAPSHOT)

    read = reader.ok(
        READ_EVERYTHING,
        {
            "issue": issue["id"],
            "contact": contact["id"],
            "account": account["id"],
            "article": article["id"],
        },
    )

    assert read["issue"]["requester"] == {"email": "wile@acme.com", "account": {"name": "Acme"}}
    assert read["issue"]["messages"]["totalCount"] == 1
    assert read["contact"] == {
        "email": "bugs@acme.com",
        "account": {"name": "Acme"},
        "issues": {"totalCount": 0},
    }
    assert read["account"] == {
        "name": "Acme",
        "contacts": {"totalCount": 2},
        "issues": {"totalCount": 1},
    }
    assert read["article"] == {"title": "Resetting your password", "status": "draft"}
    assert read["articles"]["totalCount"] == 1
    assert read["contacts"]["totalCount"] == 2
    assert read["accounts"]["totalCount"] == 1

    # A second issue for mergeIssue's call, made after the reads above have counted.
    ids["duplicate"] = new_issue(admin, requesterEmail="wile@acme.com")["id"]
    before = admin.ok(SNAPSHOT)
    calls = mutations(ids)
    schema_mutations = build_schema()._schema.mutation_type
    assert schema_mutations is not None
    assert set(calls) == set(schema_mutations.fields)  # every mutation of the schema is tried
    for name, (document, variables) in calls.items():
        answer = reader(document, variables)
        assert answer.data[name] is None, name
        assert answer.error_at(name)["extensions"]["code"] == "FORBIDDEN", name
    assert admin.ok(SNAPSHOT) == before
