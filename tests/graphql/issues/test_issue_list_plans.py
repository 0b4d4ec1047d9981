"""The issue list in update order reads ix_issues_updated (workspace_id, updated_at, id) in
its order, bounded by the filter and the cursor: a poll costs what it returns, not what the
workspace holds. The statements explained are the domain's own (`issues.list_query`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import pytest
from sqlalchemy import ClauseElement, Executable, Select, insert, text
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler

from supportdesk.db.tables import issues as issues_table
from supportdesk.domain import issues
from supportdesk.domain.clock import now
from supportdesk.domain.ids import new_id
from supportdesk.domain.lists import ListQuery
from supportdesk.domain.pagination import PageRequest
from tests.conftest import WorkspaceFixture, make_workspace
from tests.graphql.issues.helpers import new_issue
from tests.servers import RunningServer

ROWS = 2_000
REQUESTER = "query($id: ID!) { issue(id: $id) { requester { id } } }"


class Explain(Executable, ClauseElement):
    """EXPLAIN (PostgreSQL) or EXPLAIN QUERY PLAN (SQLite) of a statement, its parameters
    bound as the statement binds them."""

    inherit_cache = False

    def __init__(self, statement: Select[Any]) -> None:
        self.statement = statement


@compiles(Explain)
def _explain(element: Explain, compiler: SQLCompiler, **kw: Any) -> str:
    prefix = "EXPLAIN QUERY PLAN " if compiler.dialect.name == "sqlite" else "EXPLAIN "
    return prefix + compiler.process(element.statement, **kw)


@dataclass
class Seeded:
    workspace: WorkspaceFixture
    start: datetime
    made: list[issues.Issue]


@pytest.fixture(scope="module")
def seeded(server: RunningServer) -> Seeded:
    """A workspace of ROWS issues changed a second apart, written straight to the database:
    a plan is only worth reading on a table of some size."""
    workspace = make_workspace(server)
    start = now() - timedelta(days=1)
    api = workspace.client()
    # A word no other test writes: the suite's shared database holds "printer" in hundreds of
    # issues, and PostgreSQL's statistics (over every workspace) would call it common.
    first = new_issue(api, subject="The quokka printer is on fire")
    requester_id = api.ok(REQUESTER, {"id": first["id"]})["issue"]["requester"]["id"]
    made = [
        issues.Issue(
            id=new_id("Issue", start),
            workspace_id=workspace.id,
            ticket_number=number,
            subject=f"issue {number}",
            status="new",
            priority="normal",
            requester_id=requester_id,
            message_count=0,
            created_at=start,
            updated_at=start + timedelta(seconds=number),
        )
        for number in range(2, ROWS + 2)
    ]

    async def write() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.execute(insert(issues_table), [vars_of(issue) for issue in made])
        if not workspace.server.db.is_sqlite:
            async with workspace.server.db.transaction() as connection:
                # Indexed as the writers index them (their subjects never say "printer"),
                # so the statistics see a full-text column like a real one, not NULLs.
                await connection.execute(
                    text(
                        "UPDATE issues SET search_vector = setweight(to_tsvector("
                        "'english'::regconfig, subject), 'A') WHERE issues.workspace_id = :workspace"
                    ),
                    {"workspace": workspace.id},
                )
            async with workspace.server.db.transaction() as connection:
                # Statistics, as autovacuum would gather them.
                await connection.execute(text("ANALYZE issues"))

    workspace.server.call(write())
    return Seeded(workspace, start, made)


def vars_of(issue: issues.Issue) -> dict[str, Any]:
    return {name: getattr(issue, name) for name in issue.__slots__}


def plan_of(
    workspace: WorkspaceFixture, query: ListQuery, *, without_seq_scan: bool = False
) -> str:
    """The plan of the query's page; `without_seq_scan` (PostgreSQL) asks which index the planner
    starts from when a table is too big to read whole, whatever this table's size."""

    async def explain() -> str:
        async with workspace.server.db.read() as connection:
            if without_seq_scan:
                await connection.execute(text("SET enable_seqscan = off"))
            try:
                rows = await connection.execute(Explain(query.rows), query.values)
                return "\n".join(str(row[-1]) for row in rows)
            finally:
                if without_seq_scan:
                    await connection.execute(text("RESET enable_seqscan"))

    return workspace.server.call(explain())


@pytest.mark.parametrize("order", [issues.IssueOrder.UPDATED_ASC, issues.IssueOrder.UPDATED_DESC])
@pytest.mark.parametrize("cursor", ["none", "inside the bounds", "short of the bound"])
def test_a_poll_reads_the_update_index_in_its_order(
    seeded: Seeded, order: issues.IssueOrder, cursor: str
) -> None:
    workspace, start = seeded.workspace, seeded.start
    where = issues.IssueFilter(
        updated_after=start + timedelta(seconds=100),
        updated_before=start + timedelta(seconds=ROWS - 100),
    )
    # "Short of the bound": a cursor that the filter's bound on its side overtakes (an
    # updatedAfter later than the cursor ascending, an updatedBefore earlier descending).
    short = 50 if order is issues.IssueOrder.UPDATED_ASC else ROWS - 50
    at = {"none": None, "inside the bounds": ROWS // 2, "short of the bound": short}[cursor]
    after = None if at is None else issues.cursor_key(seeded.made[at], order)
    query = issues.list_query(workspace.id, PageRequest(25, after), where, order)
    # The scan starts at the cursor, unless the filter's bound is the tighter.
    cursor_bounds = cursor == "inside the bounds"

    plan = plan_of(workspace, query)

    assert "ix_issues_updated" in plan, plan
    if workspace.server.db.is_sqlite:
        assert "TEMP B-TREE" not in plan, plan  # no sort: the index gives the order
        assert ("(updated_at,id)" in plan) is cursor_bounds, plan
    else:
        assert "Sort" not in plan, plan
        assert "Seq Scan" not in plan, plan
        assert ("ROW(updated_at" in plan) is cursor_bounds, plan


@pytest.mark.parametrize("order", [None, issues.IssueOrder.CREATED_DESC])
def test_a_search_starts_from_the_full_text_index(
    seeded: Seeded, order: issues.IssueOrder | None
) -> None:
    """A search reads the index's matches for its words, then their issues: it costs what
    it finds, not what the workspace holds."""
    workspace = seeded.workspace
    where = issues.IssueFilter(query="quokka", statuses=("new",))
    query = issues.list_query(workspace.id, PageRequest(25, None), where, order)

    # A few thousand rows are cheap to read whole, and whether PostgreSQL does depends on
    # what the rest of the suite wrote; the question is which index a search starts from.
    plan = plan_of(workspace, query, without_seq_scan=not workspace.server.db.is_sqlite)

    if workspace.server.db.is_sqlite:
        steps = [line for line in plan.splitlines() if line.startswith(("SCAN", "SEARCH"))]
        assert "issues_fts VIRTUAL TABLE INDEX" in steps[0], plan
        assert "ix_issues_search_rowid" in plan, plan
    else:
        assert "Index Scan on ix_issues_search_vector" in plan, plan
        assert "Seq Scan" not in plan, plan


SEARCH = "query($q: String) { issues(filter: {query: $q}) { totalCount edges { node { id } } } }"


def test_a_search_is_planned_for_its_workspace(workspace: WorkspaceFixture) -> None:
    """PostgreSQL plans a prepared statement once for every value after five runs; the
    best plan of a search depends on its workspace's size (a small one: its own rows that
    the index matches; a large one: the index's matches, then its own), so a search's
    statements name the workspace, where a plain list's bind it."""
    api = workspace.client()
    new_issue(api)
    counter = workspace.server.statements

    counter.reset()
    api.ok(SEARCH, {"q": "printer"})
    searching = [s for s in counter.statements if "FROM issues" in s]
    counter.reset()
    api.ok(SEARCH, {"q": None})
    listing = [s for s in counter.statements if "FROM issues" in s]

    assert len(searching) == 2  # the page and the count
    assert all(f"issues.workspace_id = '{workspace.id}'" in s for s in searching), searching
    assert not any(workspace.id in s for s in listing), listing


@pytest.mark.parametrize("order", [None, issues.IssueOrder.UPDATED_DESC])
def test_a_list_keeps_one_plan_for_pages_of_its_size(
    seeded: Seeded, order: issues.IssueOrder | None
) -> None:
    """PostgreSQL re-plans a prepared statement at every run while its generic plan looks
    dearer than a custom one, as it always does with a bound LIMIT (reckoned a tenth of the
    rows). A list writes its page's size into its SQL, so the plan is made once."""
    workspace = seeded.workspace
    if workspace.server.db.is_sqlite:
        pytest.skip("SQLite has no plan cache to keep: it prepares every statement as is")
    query = issues.list_query(workspace.id, PageRequest(25, None), issues.IssueFilter(), order)
    compiled = workspace.server.db.compile(query.rows)
    values = [query.values[name] for name in compiled.names]

    async def plans() -> tuple[int, int]:
        # A connection of its own: the statement prepared once, as the server's pools do.
        url = workspace.server.database_url.replace("postgresql+asyncpg://", "postgresql://")
        connection = await asyncpg.connect(url)
        try:
            statement = await connection.prepare(compiled.sql)
            for _ in range(8):  # PostgreSQL weighs a generic plan after five custom ones
                await statement.fetch(*values)
            found = await connection.fetchrow(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                "WHERE statement = $1",
                compiled.sql,
            )
            assert found is not None
            return int(found[0]), int(found[1])
        finally:
            await connection.close()

    generic, custom = workspace.server.call(plans())

    assert generic >= 3, f"{generic} generic and {custom} custom plans"


def test_a_list_is_reckoned_alike_for_every_workspace(
    seeded: Seeded, workspace: WorkspaceFixture
) -> None:
    """The planner does not look at which workspace a plain list is for (its plan is the
    same for all): PostgreSQL would otherwise reckon a plan made for a large workspace
    cheaper than its generic plan, and plan such a list again at every request."""
    if workspace.server.db.is_sqlite:
        pytest.skip("SQLite has no plan cache to keep: it prepares every statement as is")
    new_issue(workspace.client())
    page = PageRequest(25, None)

    def cost(workspace_id: str) -> str:
        query = issues.list_query(workspace_id, page, issues.IssueFilter(), None)
        first_line = plan_of(seeded.workspace, query).splitlines()[0]
        return first_line[first_line.index("(cost=") :]

    assert cost(seeded.workspace.id) == cost(workspace.id)
