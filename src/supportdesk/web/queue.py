"""What the queue at /inbox/ shows, read from its address: a view (Mine, Unassigned, All
open, Solved), filters, a search and a page. The same names are what a saved view keeps,
so a saved view is an address and a link to it is the view."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from urllib.parse import urlencode

from supportdesk.domain.issues import IssueFilter
from supportdesk.domain.issues.workflow import PRIORITIES, STATUSES

OPEN_STATUSES = ("new", "open", "pending", "on_hold")
DONE_STATUSES = ("solved", "closed")


@dataclass(frozen=True, slots=True)
class View:
    key: str
    title: str
    statuses: tuple[str, ...]
    # Whom the view is limited to: "me", "nobody", or anyone (None).
    assigned: str | None = None


VIEWS = (
    View("mine", "Mine", OPEN_STATUSES, "me"),
    View("unassigned", "Unassigned", OPEN_STATUSES, "nobody"),
    View("open", "All open", OPEN_STATUSES),
    View("solved", "Solved", DONE_STATUSES),
)
VIEWS_BY_KEY = {view.key: view for view in VIEWS}
DEFAULT_VIEW = "mine"
# The names a saved view keeps, in the order an address writes them.
FILTER_NAMES = ("view", "status", "priority", "label", "assignee", "q")
MAX_QUERY = 200


@dataclass(frozen=True, slots=True)
class QueueQuery:
    """The queue's address, cleaned: unknown values fall back to "any" rather than to an
    error, as a hand-edited address deserves."""

    view: str = DEFAULT_VIEW
    status: str = ""
    priority: str = ""
    label: str = ""
    assignee: str = ""
    q: str = ""
    after: str = ""
    before: str = ""

    @classmethod
    def of(cls, params: Mapping[str, str]) -> QueueQuery:
        def value(name: str, limit: int = 100) -> str:
            return (params.get(name) or "").strip()[:limit]

        view = value("view")
        status, priority = value("status"), value("priority")
        return cls(
            view=view if view in VIEWS_BY_KEY else DEFAULT_VIEW,
            status=status if status in STATUSES else "",
            priority=priority if priority in PRIORITIES else "",
            label=value("label"),
            assignee=value("assignee"),
            q=value("q", MAX_QUERY),
            after=value("after", 300),
            before=value("before", 300),
        )

    @property
    def shape(self) -> View:
        return VIEWS_BY_KEY[self.view]

    @property
    def filters(self) -> dict[str, str]:
        """The filter without the page: what a saved view keeps."""
        return {name: getattr(self, name) for name in FILTER_NAMES if getattr(self, name)}

    @property
    def filtered(self) -> bool:
        """Whether anything narrows the view."""
        return any(getattr(self, name) for name in FILTER_NAMES[1:])

    def url(self, **changes: str) -> str:
        """The queue's address for this query with `changes`; a new filter starts at the
        first page unless a cursor is given."""
        changed = replace(self, **changes)
        if not ({"after", "before"} & set(changes)):
            changed = replace(changed, after="", before="")
        values = {**changed.filters}
        for name in ("after", "before"):
            if getattr(changed, name):
                values[name] = getattr(changed, name)
        return "/inbox/" + (f"?{urlencode(values)}" if values else "")

    def issue_filter(self, me: str, view: View | None = None) -> IssueFilter | None:
        """The domain's filter for `view` (this query's by default) narrowed by the
        filters; None when nothing can match (a status outside the view's)."""
        view = view or self.shape
        statuses = view.statuses
        if self.status:
            if self.status not in statuses:
                return None
            statuses = (self.status,)
        assignee_id, unassigned = None, None
        if view.assigned == "me":
            assignee_id = me
        elif view.assigned == "nobody" or self.assignee == "none":
            unassigned = True
        elif self.assignee:
            assignee_id = self.assignee
        return IssueFilter(
            statuses=statuses,
            priorities=(self.priority,) if self.priority else (),
            label_ids=(self.label,) if self.label else (),
            assignee_id=assignee_id,
            unassigned=unassigned,
            query=self.q or None,
        )


def view_filter(view: View, me: str) -> IssueFilter:
    """A view's own filter, without the query's: what its count counts."""
    found = QueueQuery(view=view.key).issue_filter(me, view)
    assert found is not None
    return found
