"""A workspace stocked for the queue's tests, made through the domain: an agent with 55
open issues (two pages of Mine), unassigned ones, solved ones, labels and priorities."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from supportdesk.domain import audit
from supportdesk.domain.issues import BulkChange, NewIssue, create_issue, update_issues
from supportdesk.domain.labels.actions import create_label
from supportdesk.domain.members.queries import list_members
from supportdesk.domain.pagination import PageRequest
from tests.conftest import WorkspaceFixture

MINE = 55
UNASSIGNED_SUBJECTS = ("Printer on fire", "Cannot log in", "Invoice twice")
SOLVED = 2


@dataclass
class Stock:
    workspace: WorkspaceFixture
    agent_email: str
    agent_id: str = ""
    admin_id: str = ""
    label_ids: dict[str, str] = field(default_factory=dict)
    # Ticket numbers by kind.
    mine: list[int] = field(default_factory=list)
    unassigned: list[int] = field(default_factory=list)
    solved: list[int] = field(default_factory=list)
    ids: dict[int, str] = field(default_factory=dict)


def stock_workspace(workspace: WorkspaceFixture) -> Stock:
    stock = Stock(workspace, workspace.add_person("agent"))
    workspace.server.call(_fill(stock))
    return stock


async def _fill(stock: Stock) -> None:
    db, ws, actor = stock.workspace.server.db, stock.workspace.id, audit.CLI_ACTOR
    people = (await list_members(db, ws, PageRequest(100, None))).items
    stock.agent_id = next(p.id for p in people if p.email == stock.agent_email)
    stock.admin_id = next(p.id for p in people if p.email == stock.workspace.admin_email)
    for name in ("billing", "bug"):
        stock.label_ids[name] = (await create_label(db, actor, ws, name, "#3454d1")).id

    async def new(subject: str, body: str = "Please help.", priority: str = "normal") -> str:
        made = await create_issue(
            db, actor, ws, NewIssue(subject, body, "ada@example.com", "Ada", priority)
        )
        stock.ids[made.ticket_number] = made.id
        return made.id

    mine = [await new(f"Agent's issue {n}") for n in range(MINE)]
    await update_issues(db, actor, ws, BulkChange(mine, assign=True, assignee_id=stock.agent_id))
    await update_issues(db, actor, ws, BulkChange(mine[:5], add_label_ids=[stock.label_ids["bug"]]))
    unassigned = [
        await new(subject, priority="urgent" if n == 0 else "normal")
        for n, subject in enumerate(UNASSIGNED_SUBJECTS)
    ]
    # Times are kept to the millisecond and an issue is made in less: the label comes at
    # least one later, so the first unassigned issue's activity is the latest of the three.
    await asyncio.sleep(0.002)
    await update_issues(
        db, actor, ws, BulkChange(unassigned[:1], add_label_ids=[stock.label_ids["billing"]])
    )
    solved = [await new(f"Solved {n}") for n in range(SOLVED)]
    await update_issues(db, actor, ws, BulkChange(solved, status="solved"))
    by_id = {issue_id: number for number, issue_id in stock.ids.items()}
    stock.mine = [by_id[i] for i in mine]
    stock.unassigned = [by_id[i] for i in unassigned]
    stock.solved = [by_id[i] for i in solved]
