from typing import Any, Optional, Union

from .account import Account, AccountAccount
from .accounts import Accounts, AccountsAccounts
from .add_customer_message import (
    AddCustomerMessage,
    AddCustomerMessageAddCustomerMessage,
)
from .add_labels import AddLabels, AddLabelsAddLabels
from .add_note import AddNote, AddNoteAddNote
from .api_info import ApiInfo
from .api_keys import ApiKeys, ApiKeysApiKeys
from .article import Article, ArticleArticle
from .articles import Articles, ArticlesArticles
from .assign_issue import AssignIssue, AssignIssueAssignIssue
from .async_base_client import AsyncBaseClient
from .audit_events import AuditEvents, AuditEventsAuditEvents
from .base_model import UNSET, UnsetType
from .contact import Contact, ContactContact
from .contact_by_email import ContactByEmail, ContactByEmailContactByEmail
from .contacts import Contacts, ContactsContacts
from .create_account import CreateAccount, CreateAccountCreateAccount
from .create_api_key import CreateApiKey, CreateApiKeyCreateApiKey
from .create_article import CreateArticle, CreateArticleCreateArticle
from .create_attachment_upload import (
    CreateAttachmentUpload,
    CreateAttachmentUploadCreateAttachmentUpload,
)
from .create_contact import CreateContact, CreateContactCreateContact
from .create_issue import CreateIssue, CreateIssueCreateIssue
from .create_label import CreateLabel, CreateLabelCreateLabel
from .create_machine_user import CreateMachineUser, CreateMachineUserCreateMachineUser
from .create_mailbox import CreateMailbox, CreateMailboxCreateMailbox
from .create_member import CreateMember, CreateMemberCreateMember
from .create_webhook_endpoint import (
    CreateWebhookEndpoint,
    CreateWebhookEndpointCreateWebhookEndpoint,
)
from .delete_label import DeleteLabel, DeleteLabelDeleteLabel
from .delete_mailbox import DeleteMailbox, DeleteMailboxDeleteMailbox
from .delete_webhook_endpoint import (
    DeleteWebhookEndpoint,
    DeleteWebhookEndpointDeleteWebhookEndpoint,
)
from .enums import IssueOrder
from .events import Events, EventsEvents
from .input_types import (
    AccountFilter,
    AddCustomerMessageInput,
    AddLabelsInput,
    AddNoteInput,
    ArticleFilter,
    AssignIssueInput,
    ContactFilter,
    CreateAccountInput,
    CreateApiKeyInput,
    CreateArticleInput,
    CreateAttachmentUploadInput,
    CreateContactInput,
    CreateIssueInput,
    CreateLabelInput,
    CreateMachineUserInput,
    CreateMailboxInput,
    CreateMemberInput,
    CreateWebhookEndpointInput,
    EventFilter,
    IssueFilter,
    MergeIssueInput,
    RedeliverWebhookEventInput,
    RemoveLabelsInput,
    ReplayWebhookEventsInput,
    ReplyToIssueInput,
    RotateWebhookSecretInput,
    UpdateAccountInput,
    UpdateArticleInput,
    UpdateContactInput,
    UpdateIssueInput,
    UpdateIssuesInput,
    UpdateLabelInput,
    UpdateMachineUserInput,
    UpdateMailboxInput,
    UpdateMemberInput,
    UpdateWebhookEndpointInput,
    WebhookDeliveryFilter,
)
from .issue import Issue, IssueIssue
from .issue_by_number import IssueByNumber, IssueByNumberIssueByNumber
from .issue_messages import IssueMessages, IssueMessagesIssue
from .issues import Issues, IssuesIssues
from .labels import Labels, LabelsLabels
from .machine_users import MachineUsers, MachineUsersMachineUsers
from .mailboxes import Mailboxes, MailboxesMailboxes
from .members import Members, MembersMembers
from .merge_issue import MergeIssue, MergeIssueMergeIssue
from .node import Node, NodeNode
from .publish_article import PublishArticle, PublishArticlePublishArticle
from .redeliver_webhook_event import (
    RedeliverWebhookEvent,
    RedeliverWebhookEventRedeliverWebhookEvent,
)
from .remove_labels import RemoveLabels, RemoveLabelsRemoveLabels
from .remove_member import RemoveMember, RemoveMemberRemoveMember
from .replay_webhook_events import (
    ReplayWebhookEvents,
    ReplayWebhookEventsReplayWebhookEvents,
)
from .reply_to_issue import ReplyToIssue, ReplyToIssueReplyToIssue
from .revoke_api_key import RevokeApiKey, RevokeApiKeyRevokeApiKey
from .rotate_mailbox_token import (
    RotateMailboxToken,
    RotateMailboxTokenRotateMailboxToken,
)
from .rotate_webhook_secret import (
    RotateWebhookSecret,
    RotateWebhookSecretRotateWebhookSecret,
)
from .send_test_webhook import SendTestWebhook, SendTestWebhookSendTestWebhook
from .unpublish_article import UnpublishArticle, UnpublishArticleUnpublishArticle
from .update_account import UpdateAccount, UpdateAccountUpdateAccount
from .update_article import UpdateArticle, UpdateArticleUpdateArticle
from .update_contact import UpdateContact, UpdateContactUpdateContact
from .update_issue import UpdateIssue, UpdateIssueUpdateIssue
from .update_issues import UpdateIssues, UpdateIssuesUpdateIssues
from .update_label import UpdateLabel, UpdateLabelUpdateLabel
from .update_machine_user import UpdateMachineUser, UpdateMachineUserUpdateMachineUser
from .update_mailbox import UpdateMailbox, UpdateMailboxUpdateMailbox
from .update_member import UpdateMember, UpdateMemberUpdateMember
from .update_webhook_endpoint import (
    UpdateWebhookEndpoint,
    UpdateWebhookEndpointUpdateWebhookEndpoint,
)
from .webhook_deliveries import (
    WebhookDeliveries,
    WebhookDeliveriesNodeNode,
    WebhookDeliveriesNodeWebhookEndpoint,
)
from .webhook_endpoints import WebhookEndpoints, WebhookEndpointsWebhookEndpoints


def gql(q: str) -> str:
    return q


class AsyncGraphQLClient(AsyncBaseClient):
    async def account(self, id: str, **kwargs: Any) -> Optional[AccountAccount]:
        query = gql("""
            query Account($id: ID!) {
              account(id: $id) {
                ...AccountFields
              }
            }

            fragment AccountFields on Account {
              id
              name
              domain
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="Account", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Account.model_validate(data).account

    async def accounts(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        filter_: Union[Optional[AccountFilter], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[AccountsAccounts]:
        query = gql("""
            query Accounts($first: Int, $after: String, $filter: AccountFilter) {
              accounts(first: $first, after: $after, filter: $filter) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...AccountFields
                  }
                }
              }
            }

            fragment AccountFields on Account {
              id
              name
              domain
              createdAt
              updatedAt
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "filter": filter_,
        }
        response = await self.execute(
            query=query, operation_name="Accounts", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Accounts.model_validate(data).accounts

    async def create_account(
        self, input: CreateAccountInput, **kwargs: Any
    ) -> Optional[CreateAccountCreateAccount]:
        query = gql("""
            mutation CreateAccount($input: CreateAccountInput!) {
              createAccount(input: $input) {
                account {
                  ...AccountFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment AccountFields on Account {
              id
              name
              domain
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="CreateAccount", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CreateAccount.model_validate(data).create_account

    async def update_account(
        self, input: UpdateAccountInput, **kwargs: Any
    ) -> Optional[UpdateAccountUpdateAccount]:
        query = gql("""
            mutation UpdateAccount($input: UpdateAccountInput!) {
              updateAccount(input: $input) {
                account {
                  ...AccountFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment AccountFields on Account {
              id
              name
              domain
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="UpdateAccount", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return UpdateAccount.model_validate(data).update_account

    async def api_info(self, **kwargs: Any) -> Optional[Any]:
        query = gql("""
            query ApiInfo {
              apiInfo
            }
            """)
        variables: dict[str, object] = {}
        response = await self.execute(
            query=query, operation_name="ApiInfo", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ApiInfo.model_validate(data).api_info

    async def node(self, id: str, **kwargs: Any) -> Optional[NodeNode]:
        query = gql("""
            query Node($id: ID!) {
              node(id: $id) {
                __typename
                id
              }
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="Node", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Node.model_validate(data).node

    async def api_keys(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        machine_user_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[ApiKeysApiKeys]:
        query = gql("""
            query ApiKeys($first: Int, $after: String, $machineUserId: ID) {
              apiKeys(first: $first, after: $after, machineUserId: $machineUserId) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...ApiKeyFields
                    machineUser {
                      id
                      name
                    }
                  }
                }
              }
            }

            fragment ApiKeyFields on ApiKey {
              id
              name
              keyPrefix
              scopes
              kind
              status
              createdAt
              lastUsedAt
              expiresAt
              revokedAt
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "machineUserId": machine_user_id,
        }
        response = await self.execute(
            query=query, operation_name="ApiKeys", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ApiKeys.model_validate(data).api_keys

    async def create_api_key(
        self, input: CreateApiKeyInput, **kwargs: Any
    ) -> Optional[CreateApiKeyCreateApiKey]:
        query = gql("""
            mutation CreateApiKey($input: CreateApiKeyInput!) {
              createApiKey(input: $input) {
                apiKey {
                  ...ApiKeyFields
                }
                secret
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment ApiKeyFields on ApiKey {
              id
              name
              keyPrefix
              scopes
              kind
              status
              createdAt
              lastUsedAt
              expiresAt
              revokedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="CreateApiKey", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CreateApiKey.model_validate(data).create_api_key

    async def revoke_api_key(
        self, id: str, **kwargs: Any
    ) -> Optional[RevokeApiKeyRevokeApiKey]:
        query = gql("""
            mutation RevokeApiKey($id: ID!) {
              revokeApiKey(id: $id) {
                apiKey {
                  ...ApiKeyFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment ApiKeyFields on ApiKey {
              id
              name
              keyPrefix
              scopes
              kind
              status
              createdAt
              lastUsedAt
              expiresAt
              revokedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="RevokeApiKey", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RevokeApiKey.model_validate(data).revoke_api_key

    async def article(self, id: str, **kwargs: Any) -> Optional[ArticleArticle]:
        query = gql("""
            query Article($id: ID!) {
              article(id: $id) {
                ...ArticleFields
              }
            }

            fragment ArticleFields on Article {
              id
              title
              body
              status
              createdAt
              updatedAt
              publishedAt
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="Article", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Article.model_validate(data).article

    async def articles(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        filter_: Union[Optional[ArticleFilter], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[ArticlesArticles]:
        query = gql("""
            query Articles($first: Int, $after: String, $filter: ArticleFilter) {
              articles(first: $first, after: $after, filter: $filter) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...ArticleFields
                  }
                }
              }
            }

            fragment ArticleFields on Article {
              id
              title
              body
              status
              createdAt
              updatedAt
              publishedAt
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "filter": filter_,
        }
        response = await self.execute(
            query=query, operation_name="Articles", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Articles.model_validate(data).articles

    async def create_article(
        self, input: CreateArticleInput, **kwargs: Any
    ) -> Optional[CreateArticleCreateArticle]:
        query = gql("""
            mutation CreateArticle($input: CreateArticleInput!) {
              createArticle(input: $input) {
                article {
                  ...ArticleFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment ArticleFields on Article {
              id
              title
              body
              status
              createdAt
              updatedAt
              publishedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="CreateArticle", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CreateArticle.model_validate(data).create_article

    async def update_article(
        self, input: UpdateArticleInput, **kwargs: Any
    ) -> Optional[UpdateArticleUpdateArticle]:
        query = gql("""
            mutation UpdateArticle($input: UpdateArticleInput!) {
              updateArticle(input: $input) {
                article {
                  ...ArticleFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment ArticleFields on Article {
              id
              title
              body
              status
              createdAt
              updatedAt
              publishedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="UpdateArticle", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return UpdateArticle.model_validate(data).update_article

    async def publish_article(
        self, id: str, **kwargs: Any
    ) -> Optional[PublishArticlePublishArticle]:
        query = gql("""
            mutation PublishArticle($id: ID!) {
              publishArticle(id: $id) {
                article {
                  ...ArticleFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment ArticleFields on Article {
              id
              title
              body
              status
              createdAt
              updatedAt
              publishedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="PublishArticle", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return PublishArticle.model_validate(data).publish_article

    async def unpublish_article(
        self, id: str, **kwargs: Any
    ) -> Optional[UnpublishArticleUnpublishArticle]:
        query = gql("""
            mutation UnpublishArticle($id: ID!) {
              unpublishArticle(id: $id) {
                article {
                  ...ArticleFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment ArticleFields on Article {
              id
              title
              body
              status
              createdAt
              updatedAt
              publishedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query,
            operation_name="UnpublishArticle",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return UnpublishArticle.model_validate(data).unpublish_article

    async def create_attachment_upload(
        self, input: CreateAttachmentUploadInput, **kwargs: Any
    ) -> Optional[CreateAttachmentUploadCreateAttachmentUpload]:
        query = gql("""
            mutation createAttachmentUpload($input: CreateAttachmentUploadInput!) {
              createAttachmentUpload(input: $input) {
                attachment {
                  ...AttachmentFields
                }
                uploadUrl
                expiresAt
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment AttachmentFields on Attachment {
              id
              fileName
              sizeBytes
              contentType
              downloadUrl
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="createAttachmentUpload",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CreateAttachmentUpload.model_validate(data).create_attachment_upload

    async def audit_events(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[AuditEventsAuditEvents]:
        query = gql("""
            query AuditEvents($first: Int, $after: String) {
              auditEvents(first: $first, after: $after) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...AuditEventFields
                  }
                }
              }
            }

            fragment AuditEventFields on AuditEvent {
              id
              action
              actorType
              actorId
              actorLabel
              targetType
              targetId
              ipAddress
              data
              createdAt
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {"first": first, "after": after}
        response = await self.execute(
            query=query, operation_name="AuditEvents", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return AuditEvents.model_validate(data).audit_events

    async def contact(self, id: str, **kwargs: Any) -> Optional[ContactContact]:
        query = gql("""
            query Contact($id: ID!) {
              contact(id: $id) {
                ...ContactFields
              }
            }

            fragment ContactFields on Contact {
              id
              email
              name
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="Contact", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Contact.model_validate(data).contact

    async def contact_by_email(
        self, email: str, **kwargs: Any
    ) -> Optional[ContactByEmailContactByEmail]:
        query = gql("""
            query ContactByEmail($email: String!) {
              contactByEmail(email: $email) {
                ...ContactFields
              }
            }

            fragment ContactFields on Contact {
              id
              email
              name
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {"email": email}
        response = await self.execute(
            query=query, operation_name="ContactByEmail", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ContactByEmail.model_validate(data).contact_by_email

    async def contacts(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        filter_: Union[Optional[ContactFilter], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[ContactsContacts]:
        query = gql("""
            query Contacts($first: Int, $after: String, $filter: ContactFilter) {
              contacts(first: $first, after: $after, filter: $filter) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...ContactFields
                  }
                }
              }
            }

            fragment ContactFields on Contact {
              id
              email
              name
              createdAt
              updatedAt
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "filter": filter_,
        }
        response = await self.execute(
            query=query, operation_name="Contacts", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Contacts.model_validate(data).contacts

    async def create_contact(
        self, input: CreateContactInput, **kwargs: Any
    ) -> Optional[CreateContactCreateContact]:
        query = gql("""
            mutation CreateContact($input: CreateContactInput!) {
              createContact(input: $input) {
                contact {
                  ...ContactFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment ContactFields on Contact {
              id
              email
              name
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="CreateContact", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CreateContact.model_validate(data).create_contact

    async def update_contact(
        self, input: UpdateContactInput, **kwargs: Any
    ) -> Optional[UpdateContactUpdateContact]:
        query = gql("""
            mutation UpdateContact($input: UpdateContactInput!) {
              updateContact(input: $input) {
                contact {
                  ...ContactFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment ContactFields on Contact {
              id
              email
              name
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="UpdateContact", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return UpdateContact.model_validate(data).update_contact

    async def events(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        filter_: Union[Optional[EventFilter], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[EventsEvents]:
        query = gql("""
            query Events($first: Int, $after: String, $filter: EventFilter) {
              events(first: $first, after: $after, filter: $filter) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...EventFields
                  }
                }
              }
            }

            fragment EventFields on Event {
              id
              type
              sequence
              createdAt
              apiVersion
              workspaceId
              actor {
                type
                id
                name
              }
              data
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "filter": filter_,
        }
        response = await self.execute(
            query=query, operation_name="Events", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Events.model_validate(data).events

    async def issue(self, id: str, **kwargs: Any) -> Optional[IssueIssue]:
        query = gql("""
            query Issue($id: ID!) {
              issue(id: $id) {
                ...IssueDetails
              }
            }

            fragment IssueDetails on Issue {
              ...IssueFields
              labels {
                ...LabelFields
              }
              assignee {
                __typename
                ... on Member {
                  id
                  name
                }
                ... on MachineUser {
                  id
                  name
                }
              }
              mergedInto {
                id
                ticketNumber
              }
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment LabelFields on Label {
              id
              name
              color
              description
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="Issue", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Issue.model_validate(data).issue

    async def issue_by_number(
        self, ticket_number: int, **kwargs: Any
    ) -> Optional[IssueByNumberIssueByNumber]:
        query = gql("""
            query IssueByNumber($ticketNumber: Int!) {
              issueByNumber(ticketNumber: $ticketNumber) {
                ...IssueDetails
              }
            }

            fragment IssueDetails on Issue {
              ...IssueFields
              labels {
                ...LabelFields
              }
              assignee {
                __typename
                ... on Member {
                  id
                  name
                }
                ... on MachineUser {
                  id
                  name
                }
              }
              mergedInto {
                id
                ticketNumber
              }
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment LabelFields on Label {
              id
              name
              color
              description
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {"ticketNumber": ticket_number}
        response = await self.execute(
            query=query, operation_name="IssueByNumber", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return IssueByNumber.model_validate(data).issue_by_number

    async def issues(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        filter_: Union[Optional[IssueFilter], UnsetType] = UNSET,
        order_by: Union[Optional[IssueOrder], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[IssuesIssues]:
        query = gql("""
            query Issues($first: Int, $after: String, $filter: IssueFilter, $orderBy: IssueOrder) {
              issues(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...IssueDetails
                  }
                }
              }
            }

            fragment IssueDetails on Issue {
              ...IssueFields
              labels {
                ...LabelFields
              }
              assignee {
                __typename
                ... on Member {
                  id
                  name
                }
                ... on MachineUser {
                  id
                  name
                }
              }
              mergedInto {
                id
                ticketNumber
              }
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment LabelFields on Label {
              id
              name
              color
              description
              createdAt
              updatedAt
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {
            "first": first,
            "after": after,
            "filter": filter_,
            "orderBy": order_by,
        }
        response = await self.execute(
            query=query, operation_name="Issues", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Issues.model_validate(data).issues

    async def issue_messages(
        self,
        issue_id: str,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        visibility: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[IssueMessagesIssue]:
        query = gql("""
            query IssueMessages($issueId: ID!, $first: Int, $after: String, $visibility: String) {
              issue(id: $issueId) {
                messages(first: $first, after: $after, visibility: $visibility) {
                  totalCount
                  pageInfo {
                    ...PageInfoFields
                  }
                  edges {
                    cursor
                    node {
                      ...MessageFields
                    }
                  }
                }
              }
            }

            fragment AttachmentFields on Attachment {
              id
              fileName
              sizeBytes
              contentType
              downloadUrl
            }

            fragment MessageFields on Message {
              id
              senderName
              body
              visibility
              channel
              createdAt
              author {
                __typename
                ... on Contact {
                  id
                }
                ... on Member {
                  id
                  name
                }
                ... on MachineUser {
                  id
                  name
                }
              }
              attachments {
                ...AttachmentFields
              }
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {
            "issueId": issue_id,
            "first": first,
            "after": after,
            "visibility": visibility,
        }
        response = await self.execute(
            query=query, operation_name="IssueMessages", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return IssueMessages.model_validate(data).issue

    async def create_issue(
        self, input: CreateIssueInput, **kwargs: Any
    ) -> Optional[CreateIssueCreateIssue]:
        query = gql("""
            mutation CreateIssue($input: CreateIssueInput!) {
              createIssue(input: $input) {
                issue {
                  ...IssueFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="CreateIssue", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CreateIssue.model_validate(data).create_issue

    async def update_issue(
        self, input: UpdateIssueInput, **kwargs: Any
    ) -> Optional[UpdateIssueUpdateIssue]:
        query = gql("""
            mutation UpdateIssue($input: UpdateIssueInput!) {
              updateIssue(input: $input) {
                issue {
                  ...IssueFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="UpdateIssue", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return UpdateIssue.model_validate(data).update_issue

    async def update_issues(
        self, input: UpdateIssuesInput, **kwargs: Any
    ) -> Optional[UpdateIssuesUpdateIssues]:
        query = gql("""
            mutation UpdateIssues($input: UpdateIssuesInput!) {
              updateIssues(input: $input) {
                issues {
                  ...IssueFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="UpdateIssues", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return UpdateIssues.model_validate(data).update_issues

    async def reply_to_issue(
        self, input: ReplyToIssueInput, **kwargs: Any
    ) -> Optional[ReplyToIssueReplyToIssue]:
        query = gql("""
            mutation ReplyToIssue($input: ReplyToIssueInput!) {
              replyToIssue(input: $input) {
                issue {
                  ...IssueFields
                }
                message {
                  ...MessageFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment AttachmentFields on Attachment {
              id
              fileName
              sizeBytes
              contentType
              downloadUrl
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment MessageFields on Message {
              id
              senderName
              body
              visibility
              channel
              createdAt
              author {
                __typename
                ... on Contact {
                  id
                }
                ... on Member {
                  id
                  name
                }
                ... on MachineUser {
                  id
                  name
                }
              }
              attachments {
                ...AttachmentFields
              }
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="ReplyToIssue", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ReplyToIssue.model_validate(data).reply_to_issue

    async def add_note(
        self, input: AddNoteInput, **kwargs: Any
    ) -> Optional[AddNoteAddNote]:
        query = gql("""
            mutation AddNote($input: AddNoteInput!) {
              addNote(input: $input) {
                issue {
                  ...IssueFields
                }
                message {
                  ...MessageFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment AttachmentFields on Attachment {
              id
              fileName
              sizeBytes
              contentType
              downloadUrl
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment MessageFields on Message {
              id
              senderName
              body
              visibility
              channel
              createdAt
              author {
                __typename
                ... on Contact {
                  id
                }
                ... on Member {
                  id
                  name
                }
                ... on MachineUser {
                  id
                  name
                }
              }
              attachments {
                ...AttachmentFields
              }
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="AddNote", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return AddNote.model_validate(data).add_note

    async def add_customer_message(
        self, input: AddCustomerMessageInput, **kwargs: Any
    ) -> Optional[AddCustomerMessageAddCustomerMessage]:
        query = gql("""
            mutation AddCustomerMessage($input: AddCustomerMessageInput!) {
              addCustomerMessage(input: $input) {
                issue {
                  ...IssueFields
                }
                message {
                  ...MessageFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment AttachmentFields on Attachment {
              id
              fileName
              sizeBytes
              contentType
              downloadUrl
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment MessageFields on Message {
              id
              senderName
              body
              visibility
              channel
              createdAt
              author {
                __typename
                ... on Contact {
                  id
                }
                ... on Member {
                  id
                  name
                }
                ... on MachineUser {
                  id
                  name
                }
              }
              attachments {
                ...AttachmentFields
              }
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="AddCustomerMessage",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return AddCustomerMessage.model_validate(data).add_customer_message

    async def assign_issue(
        self, input: AssignIssueInput, **kwargs: Any
    ) -> Optional[AssignIssueAssignIssue]:
        query = gql("""
            mutation AssignIssue($input: AssignIssueInput!) {
              assignIssue(input: $input) {
                issue {
                  ...IssueDetails
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment IssueDetails on Issue {
              ...IssueFields
              labels {
                ...LabelFields
              }
              assignee {
                __typename
                ... on Member {
                  id
                  name
                }
                ... on MachineUser {
                  id
                  name
                }
              }
              mergedInto {
                id
                ticketNumber
              }
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment LabelFields on Label {
              id
              name
              color
              description
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="AssignIssue", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return AssignIssue.model_validate(data).assign_issue

    async def merge_issue(
        self, input: MergeIssueInput, **kwargs: Any
    ) -> Optional[MergeIssueMergeIssue]:
        query = gql("""
            mutation MergeIssue($input: MergeIssueInput!) {
              mergeIssue(input: $input) {
                issue {
                  ...IssueDetails
                }
                source {
                  ...IssueDetails
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment IssueDetails on Issue {
              ...IssueFields
              labels {
                ...LabelFields
              }
              assignee {
                __typename
                ... on Member {
                  id
                  name
                }
                ... on MachineUser {
                  id
                  name
                }
              }
              mergedInto {
                id
                ticketNumber
              }
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment LabelFields on Label {
              id
              name
              color
              description
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="MergeIssue", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return MergeIssue.model_validate(data).merge_issue

    async def labels(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[LabelsLabels]:
        query = gql("""
            query Labels($first: Int, $after: String) {
              labels(first: $first, after: $after) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...LabelFields
                  }
                }
              }
            }

            fragment LabelFields on Label {
              id
              name
              color
              description
              createdAt
              updatedAt
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {"first": first, "after": after}
        response = await self.execute(
            query=query, operation_name="Labels", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Labels.model_validate(data).labels

    async def create_label(
        self, input: CreateLabelInput, **kwargs: Any
    ) -> Optional[CreateLabelCreateLabel]:
        query = gql("""
            mutation CreateLabel($input: CreateLabelInput!) {
              createLabel(input: $input) {
                label {
                  ...LabelFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment LabelFields on Label {
              id
              name
              color
              description
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="CreateLabel", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CreateLabel.model_validate(data).create_label

    async def update_label(
        self, input: UpdateLabelInput, **kwargs: Any
    ) -> Optional[UpdateLabelUpdateLabel]:
        query = gql("""
            mutation UpdateLabel($input: UpdateLabelInput!) {
              updateLabel(input: $input) {
                label {
                  ...LabelFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment LabelFields on Label {
              id
              name
              color
              description
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="UpdateLabel", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return UpdateLabel.model_validate(data).update_label

    async def delete_label(
        self, id: str, **kwargs: Any
    ) -> Optional[DeleteLabelDeleteLabel]:
        query = gql("""
            mutation DeleteLabel($id: ID!) {
              deleteLabel(id: $id) {
                label {
                  ...LabelFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment LabelFields on Label {
              id
              name
              color
              description
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="DeleteLabel", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return DeleteLabel.model_validate(data).delete_label

    async def add_labels(
        self, input: AddLabelsInput, **kwargs: Any
    ) -> Optional[AddLabelsAddLabels]:
        query = gql("""
            mutation AddLabels($input: AddLabelsInput!) {
              addLabels(input: $input) {
                issue {
                  ...IssueDetails
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment IssueDetails on Issue {
              ...IssueFields
              labels {
                ...LabelFields
              }
              assignee {
                __typename
                ... on Member {
                  id
                  name
                }
                ... on MachineUser {
                  id
                  name
                }
              }
              mergedInto {
                id
                ticketNumber
              }
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment LabelFields on Label {
              id
              name
              color
              description
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="AddLabels", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return AddLabels.model_validate(data).add_labels

    async def remove_labels(
        self, input: RemoveLabelsInput, **kwargs: Any
    ) -> Optional[RemoveLabelsRemoveLabels]:
        query = gql("""
            mutation RemoveLabels($input: RemoveLabelsInput!) {
              removeLabels(input: $input) {
                issue {
                  ...IssueDetails
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment IssueDetails on Issue {
              ...IssueFields
              labels {
                ...LabelFields
              }
              assignee {
                __typename
                ... on Member {
                  id
                  name
                }
                ... on MachineUser {
                  id
                  name
                }
              }
              mergedInto {
                id
                ticketNumber
              }
            }

            fragment IssueFields on Issue {
              id
              ticketNumber
              subject
              status
              priority
              messageCount
              createdAt
              updatedAt
            }

            fragment LabelFields on Label {
              id
              name
              color
              description
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="RemoveLabels", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RemoveLabels.model_validate(data).remove_labels

    async def machine_users(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[MachineUsersMachineUsers]:
        query = gql("""
            query MachineUsers($first: Int, $after: String) {
              machineUsers(first: $first, after: $after) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...MachineUserFields
                  }
                }
              }
            }

            fragment MachineUserFields on MachineUser {
              id
              name
              description
              managed
              createdAt
              updatedAt
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {"first": first, "after": after}
        response = await self.execute(
            query=query, operation_name="MachineUsers", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return MachineUsers.model_validate(data).machine_users

    async def create_machine_user(
        self, input: CreateMachineUserInput, **kwargs: Any
    ) -> Optional[CreateMachineUserCreateMachineUser]:
        query = gql("""
            mutation CreateMachineUser($input: CreateMachineUserInput!) {
              createMachineUser(input: $input) {
                machineUser {
                  ...MachineUserFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MachineUserFields on MachineUser {
              id
              name
              description
              managed
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="CreateMachineUser",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CreateMachineUser.model_validate(data).create_machine_user

    async def update_machine_user(
        self, input: UpdateMachineUserInput, **kwargs: Any
    ) -> Optional[UpdateMachineUserUpdateMachineUser]:
        query = gql("""
            mutation UpdateMachineUser($input: UpdateMachineUserInput!) {
              updateMachineUser(input: $input) {
                machineUser {
                  ...MachineUserFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MachineUserFields on MachineUser {
              id
              name
              description
              managed
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="UpdateMachineUser",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return UpdateMachineUser.model_validate(data).update_machine_user

    async def mailboxes(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[MailboxesMailboxes]:
        query = gql("""
            query Mailboxes($first: Int, $after: String) {
              mailboxes(first: $first, after: $after) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...MailboxFields
                  }
                }
              }
            }

            fragment MailboxFields on Mailbox {
              id
              address
              name
              acknowledge
              imapUrl
              tokenPrefix
              createdAt
              updatedAt
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {"first": first, "after": after}
        response = await self.execute(
            query=query, operation_name="Mailboxes", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Mailboxes.model_validate(data).mailboxes

    async def create_mailbox(
        self, input: CreateMailboxInput, **kwargs: Any
    ) -> Optional[CreateMailboxCreateMailbox]:
        query = gql("""
            mutation CreateMailbox($input: CreateMailboxInput!) {
              createMailbox(input: $input) {
                mailbox {
                  ...MailboxFields
                }
                inboundToken
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MailboxFields on Mailbox {
              id
              address
              name
              acknowledge
              imapUrl
              tokenPrefix
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="CreateMailbox", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CreateMailbox.model_validate(data).create_mailbox

    async def update_mailbox(
        self, input: UpdateMailboxInput, **kwargs: Any
    ) -> Optional[UpdateMailboxUpdateMailbox]:
        query = gql("""
            mutation UpdateMailbox($input: UpdateMailboxInput!) {
              updateMailbox(input: $input) {
                mailbox {
                  ...MailboxFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MailboxFields on Mailbox {
              id
              address
              name
              acknowledge
              imapUrl
              tokenPrefix
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="UpdateMailbox", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return UpdateMailbox.model_validate(data).update_mailbox

    async def delete_mailbox(
        self, id: str, **kwargs: Any
    ) -> Optional[DeleteMailboxDeleteMailbox]:
        query = gql("""
            mutation DeleteMailbox($id: ID!) {
              deleteMailbox(id: $id) {
                mailbox {
                  ...MailboxFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MailboxFields on Mailbox {
              id
              address
              name
              acknowledge
              imapUrl
              tokenPrefix
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="DeleteMailbox", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return DeleteMailbox.model_validate(data).delete_mailbox

    async def rotate_mailbox_token(
        self, id: str, **kwargs: Any
    ) -> Optional[RotateMailboxTokenRotateMailboxToken]:
        query = gql("""
            mutation RotateMailboxToken($id: ID!) {
              rotateMailboxToken(id: $id) {
                mailbox {
                  ...MailboxFields
                }
                inboundToken
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MailboxFields on Mailbox {
              id
              address
              name
              acknowledge
              imapUrl
              tokenPrefix
              createdAt
              updatedAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query,
            operation_name="RotateMailboxToken",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return RotateMailboxToken.model_validate(data).rotate_mailbox_token

    async def members(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[MembersMembers]:
        query = gql("""
            query Members($first: Int, $after: String) {
              members(first: $first, after: $after) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...MemberFields
                  }
                }
              }
            }

            fragment MemberFields on Member {
              id
              email
              name
              role
              createdAt
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }
            """)
        variables: dict[str, object] = {"first": first, "after": after}
        response = await self.execute(
            query=query, operation_name="Members", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Members.model_validate(data).members

    async def create_member(
        self, input: CreateMemberInput, **kwargs: Any
    ) -> Optional[CreateMemberCreateMember]:
        query = gql("""
            mutation CreateMember($input: CreateMemberInput!) {
              createMember(input: $input) {
                member {
                  ...MemberFields
                }
                invitationUrl
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MemberFields on Member {
              id
              email
              name
              role
              createdAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="CreateMember", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CreateMember.model_validate(data).create_member

    async def update_member(
        self, input: UpdateMemberInput, **kwargs: Any
    ) -> Optional[UpdateMemberUpdateMember]:
        query = gql("""
            mutation UpdateMember($input: UpdateMemberInput!) {
              updateMember(input: $input) {
                member {
                  ...MemberFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MemberFields on Member {
              id
              email
              name
              role
              createdAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query, operation_name="UpdateMember", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return UpdateMember.model_validate(data).update_member

    async def remove_member(
        self, id: str, **kwargs: Any
    ) -> Optional[RemoveMemberRemoveMember]:
        query = gql("""
            mutation RemoveMember($id: ID!) {
              removeMember(id: $id) {
                member {
                  ...MemberFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MemberFields on Member {
              id
              email
              name
              role
              createdAt
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="RemoveMember", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RemoveMember.model_validate(data).remove_member

    async def webhook_endpoints(
        self,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[WebhookEndpointsWebhookEndpoints]:
        query = gql("""
            query WebhookEndpoints($first: Int, $after: String) {
              webhookEndpoints(first: $first, after: $after) {
                totalCount
                pageInfo {
                  ...PageInfoFields
                }
                edges {
                  cursor
                  node {
                    ...WebhookEndpointFields
                  }
                }
              }
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }

            fragment WebhookEndpointFields on WebhookEndpoint {
              id
              url
              description
              eventTypes
              enabled
              status
              disabledReason
              secretPrefix
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {"first": first, "after": after}
        response = await self.execute(
            query=query,
            operation_name="WebhookEndpoints",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return WebhookEndpoints.model_validate(data).webhook_endpoints

    async def webhook_deliveries(
        self,
        endpoint_id: str,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        filter_: Union[Optional[WebhookDeliveryFilter], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Optional[
        Union[WebhookDeliveriesNodeNode, WebhookDeliveriesNodeWebhookEndpoint]
    ]:
        query = gql("""
            query WebhookDeliveries($endpointId: ID!, $first: Int, $after: String, $filter: WebhookDeliveryFilter) {
              node(id: $endpointId) {
                __typename
                ... on WebhookEndpoint {
                  deliveries(first: $first, after: $after, filter: $filter) {
                    totalCount
                    pageInfo {
                      ...PageInfoFields
                    }
                    edges {
                      cursor
                      node {
                        ...WebhookDeliveryFields
                      }
                    }
                  }
                }
              }
            }

            fragment PageInfoFields on PageInfo {
              hasNextPage
              endCursor
            }

            fragment WebhookDeliveryFields on WebhookDelivery {
              id
              eventId
              eventType
              status
              attempts
              lastAttemptAt
              nextAttemptAt
              lastResponseStatus
              lastError
              durationMs
              createdAt
            }
            """)
        variables: dict[str, object] = {
            "endpointId": endpoint_id,
            "first": first,
            "after": after,
            "filter": filter_,
        }
        response = await self.execute(
            query=query,
            operation_name="WebhookDeliveries",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return WebhookDeliveries.model_validate(data).node

    async def create_webhook_endpoint(
        self, input: CreateWebhookEndpointInput, **kwargs: Any
    ) -> Optional[CreateWebhookEndpointCreateWebhookEndpoint]:
        query = gql("""
            mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
              createWebhookEndpoint(input: $input) {
                webhookEndpoint {
                  ...WebhookEndpointFields
                }
                secret
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }

            fragment WebhookEndpointFields on WebhookEndpoint {
              id
              url
              description
              eventTypes
              enabled
              status
              disabledReason
              secretPrefix
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="CreateWebhookEndpoint",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CreateWebhookEndpoint.model_validate(data).create_webhook_endpoint

    async def update_webhook_endpoint(
        self, input: UpdateWebhookEndpointInput, **kwargs: Any
    ) -> Optional[UpdateWebhookEndpointUpdateWebhookEndpoint]:
        query = gql("""
            mutation UpdateWebhookEndpoint($input: UpdateWebhookEndpointInput!) {
              updateWebhookEndpoint(input: $input) {
                webhookEndpoint {
                  ...WebhookEndpointFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }

            fragment WebhookEndpointFields on WebhookEndpoint {
              id
              url
              description
              eventTypes
              enabled
              status
              disabledReason
              secretPrefix
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="UpdateWebhookEndpoint",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return UpdateWebhookEndpoint.model_validate(data).update_webhook_endpoint

    async def delete_webhook_endpoint(
        self, id: str, **kwargs: Any
    ) -> Optional[DeleteWebhookEndpointDeleteWebhookEndpoint]:
        query = gql("""
            mutation DeleteWebhookEndpoint($id: ID!) {
              deleteWebhookEndpoint(id: $id) {
                webhookEndpoint {
                  ...WebhookEndpointFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }

            fragment WebhookEndpointFields on WebhookEndpoint {
              id
              url
              description
              eventTypes
              enabled
              status
              disabledReason
              secretPrefix
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query,
            operation_name="DeleteWebhookEndpoint",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return DeleteWebhookEndpoint.model_validate(data).delete_webhook_endpoint

    async def rotate_webhook_secret(
        self, input: RotateWebhookSecretInput, **kwargs: Any
    ) -> Optional[RotateWebhookSecretRotateWebhookSecret]:
        query = gql("""
            mutation RotateWebhookSecret($input: RotateWebhookSecretInput!) {
              rotateWebhookSecret(input: $input) {
                webhookEndpoint {
                  ...WebhookEndpointFields
                }
                secret
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }

            fragment WebhookEndpointFields on WebhookEndpoint {
              id
              url
              description
              eventTypes
              enabled
              status
              disabledReason
              secretPrefix
              createdAt
              updatedAt
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="RotateWebhookSecret",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return RotateWebhookSecret.model_validate(data).rotate_webhook_secret

    async def send_test_webhook(
        self, id: str, **kwargs: Any
    ) -> Optional[SendTestWebhookSendTestWebhook]:
        query = gql("""
            mutation SendTestWebhook($id: ID!) {
              sendTestWebhook(id: $id) {
                delivery {
                  ...WebhookDeliveryFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }

            fragment WebhookDeliveryFields on WebhookDelivery {
              id
              eventId
              eventType
              status
              attempts
              lastAttemptAt
              nextAttemptAt
              lastResponseStatus
              lastError
              durationMs
              createdAt
            }
            """)
        variables: dict[str, object] = {"id": id}
        response = await self.execute(
            query=query, operation_name="SendTestWebhook", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return SendTestWebhook.model_validate(data).send_test_webhook

    async def redeliver_webhook_event(
        self, input: RedeliverWebhookEventInput, **kwargs: Any
    ) -> Optional[RedeliverWebhookEventRedeliverWebhookEvent]:
        query = gql("""
            mutation RedeliverWebhookEvent($input: RedeliverWebhookEventInput!) {
              redeliverWebhookEvent(input: $input) {
                delivery {
                  ...WebhookDeliveryFields
                }
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }

            fragment WebhookDeliveryFields on WebhookDelivery {
              id
              eventId
              eventType
              status
              attempts
              lastAttemptAt
              nextAttemptAt
              lastResponseStatus
              lastError
              durationMs
              createdAt
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="RedeliverWebhookEvent",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return RedeliverWebhookEvent.model_validate(data).redeliver_webhook_event

    async def replay_webhook_events(
        self, input: ReplayWebhookEventsInput, **kwargs: Any
    ) -> Optional[ReplayWebhookEventsReplayWebhookEvents]:
        query = gql("""
            mutation ReplayWebhookEvents($input: ReplayWebhookEventsInput!) {
              replayWebhookEvents(input: $input) {
                count
                error {
                  ...MutationErrorFields
                }
              }
            }

            fragment MutationErrorFields on MutationError {
              code
              message
              fields {
                field
                code
              }
            }
            """)
        variables: dict[str, object] = {"input": input}
        response = await self.execute(
            query=query,
            operation_name="ReplayWebhookEvents",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return ReplayWebhookEvents.model_validate(data).replay_webhook_events
