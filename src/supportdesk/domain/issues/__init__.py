"""Issues (support tickets): numbered per workspace, with a status, a priority and a thread."""

from supportdesk.domain.issues.actions import (
    NewIssue,
    ThreadMoved,
    add_customer_message,
    add_note,
    create_issue,
    reply_to_issue,
    update_issue,
)
from supportdesk.domain.issues.assignment import assign_issue
from supportdesk.domain.issues.bulk import BulkChange, update_issues
from supportdesk.domain.issues.merge import merge_issue
from supportdesk.domain.issues.models import (
    VISIBILITIES,
    Issue,
    IssueFilter,
    IssueHit,
    IssueOrder,
    Message,
)
from supportdesk.domain.issues.queries import (
    count_issues,
    count_issues_of_accounts,
    count_issues_of_contacts,
    count_issues_up_to,
    count_messages_of_visibility,
    cursor_key,
    fetch_issue_by_number,
    fetch_issues,
    fetch_threads,
    get_messages,
    issues_of_accounts,
    issues_of_contacts,
    list_issues,
    list_order,
    list_query,
)

__all__ = [
    "VISIBILITIES",
    "BulkChange",
    "Issue",
    "IssueFilter",
    "IssueHit",
    "IssueOrder",
    "Message",
    "NewIssue",
    "ThreadMoved",
    "add_customer_message",
    "add_note",
    "assign_issue",
    "count_issues",
    "count_issues_of_accounts",
    "count_issues_of_contacts",
    "count_issues_up_to",
    "count_messages_of_visibility",
    "create_issue",
    "cursor_key",
    "fetch_issue_by_number",
    "fetch_issues",
    "fetch_threads",
    "get_messages",
    "issues_of_accounts",
    "issues_of_contacts",
    "list_issues",
    "list_order",
    "list_query",
    "merge_issue",
    "reply_to_issue",
    "update_issue",
    "update_issues",
]
