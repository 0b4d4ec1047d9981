"""Labels: tags on issues, unique by name in a workspace (docs/working-issues.md)."""

from supportdesk.domain.labels.actions import (
    IssueLabelsChange,
    add_labels,
    create_label,
    delete_label,
    remove_labels,
    update_label,
)
from supportdesk.domain.labels.models import MAX_LABELS_PER_ISSUE, Label
from supportdesk.domain.labels.queries import (
    count_labels,
    get_labels,
    labels_by_name,
    labels_of_issues,
    list_labels,
)

__all__ = [
    "MAX_LABELS_PER_ISSUE",
    "IssueLabelsChange",
    "Label",
    "add_labels",
    "count_labels",
    "create_label",
    "delete_label",
    "get_labels",
    "labels_by_name",
    "labels_of_issues",
    "list_labels",
    "remove_labels",
    "update_label",
]
