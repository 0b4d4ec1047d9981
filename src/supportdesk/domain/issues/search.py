"""Full-text search over issues: the subject and every message of the thread, notes
included (every key that reads issues reads notes).

The index (built by migration 0013, its workspace column by 0016; how each backend keeps
and ranks it, and keeps one workspace's search from reading another's rows: db/search.py)
has two fields: the subject, whose match weighs as ten matches of the thread on SQLite,
weight A against B on PostgreSQL; and the thread's bodies one after another. Its texts are
handed over by the writers, inside their own transactions: createIssue indexes the subject
and the first message, replyToIssue and addNote append their message, updateIssue sets a
new subject, and mergeIssue moves the source's bodies to the end of the target's (the
source keeps only its subject, as it keeps no messages).
"""

from __future__ import annotations

from supportdesk.db.search import SearchField, SearchIndex
from supportdesk.db.tables import issues

SUBJECT = "subject"
THREAD = "body"

ISSUE_SEARCH = SearchIndex(
    table=issues,
    key=(issues.c.workspace_id, issues.c.id),
    rowid=issues.c.search_rowid,
    fields=(SearchField(SUBJECT, weight="A", boost=10.0), SearchField(THREAD, weight="B")),
    fts="issues_fts",
    vector="search_vector",
    from_columns=False,
)
