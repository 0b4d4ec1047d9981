"""Label: a tag on issues (docs/working-issues.md). Type, queries, mutations."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry

from supportdesk.domain import labels
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import MutationError, mutate
from supportdesk.graphql.node import Node
from supportdesk.graphql.pagination import Connection, connection_of

if TYPE_CHECKING:
    from supportdesk.graphql.issues import Issue

IssueRef = Annotated["Issue", strawberry.lazy("supportdesk.graphql.issues")]


@strawberry.type(description="A tag on issues; its name is unique in the workspace, any case.")
class Label(Node):
    name: str = strawberry.field(description="1–50 characters.")
    color: str = strawberry.field(description="`#rrggbb`, lowercase.")
    description: str
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, label: labels.Label) -> Label:
        return cls(
            id=strawberry.ID(label.id),
            name=label.name,
            color=label.color,
            description=label.description,
            created_at=label.created_at,
            updated_at=label.updated_at,
        )


@strawberry.input(description="Checked by the service; failures come back in `error`.")
class CreateLabelInput:
    name: str | None = strawberry.field(
        default=None, description="Required; 1–50 characters, unique in the workspace, any case."
    )
    color: str | None = strawberry.field(
        default=None, description="`#rrggbb`; gray (`#6b7280`) when not given."
    )
    description: str | None = strawberry.field(default=None, description="Up to 500 characters.")


@strawberry.input(description="Change what is given.")
class UpdateLabelInput:
    id: strawberry.ID
    name: str | None = None
    color: str | None = None
    description: str | None = None


_LABEL_IDS_DESCRIPTION = (
    "Labels of the workspace; one that does not exist fails the whole call (`labelIds` UNKNOWN)."
)


@strawberry.input(description="Labels to put on one issue.")
class AddLabelsInput:
    issue_id: strawberry.ID
    label_ids: list[strawberry.ID] = strawberry.field(
        description=_LABEL_IDS_DESCRIPTION + " Labels already on are no change."
    )


@strawberry.input(description="Labels to take off one issue.")
class RemoveLabelsInput:
    issue_id: strawberry.ID
    label_ids: list[strawberry.ID] = strawberry.field(
        description=_LABEL_IDS_DESCRIPTION + " Labels already off are no change."
    )


@strawberry.type
class CreateLabelPayload:
    label: Label | None = None
    error: MutationError | None = None


@strawberry.type
class UpdateLabelPayload:
    label: Label | None = None
    error: MutationError | None = None


@strawberry.type
class DeleteLabelPayload:
    label: Label | None = strawberry.field(default=None, description="The label as it was.")
    error: MutationError | None = None


@strawberry.type
class AddLabelsPayload:
    issue: IssueRef | None = None
    error: MutationError | None = None


@strawberry.type
class RemoveLabelsPayload:
    issue: IssueRef | None = None
    error: MutationError | None = None


@strawberry.type
class LabelQueries:
    @strawberry.field(description="The workspace's labels, oldest first.")
    async def labels(
        self, info: Info, first: int | None = None, after: str | None = None
    ) -> Connection[Label] | None:
        context = info.context
        request = PageRequest.of(first, after, context.cursors, "Label")
        page = await labels.list_labels(context.db, context.workspace_id, request)
        return connection_of(
            context.cursors,
            page,
            [Label.of(label) for label in page.items],
            lambda: labels.count_labels(context.db, context.workspace_id),
        )


@strawberry.type
class LabelMutations:
    @strawberry.mutation(description="Add a label to the workspace.")
    async def create_label(self, info: Info, input: CreateLabelInput) -> CreateLabelPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            label = await labels.create_label(
                context.db,
                context.actor,
                context.workspace_id,
                input.name,
                input.color,
                input.description,
            )
            return {"label": Label.of(label)}

        return await mutate(CreateLabelPayload, action)

    @strawberry.mutation(description="Rename a label, or change its color or description.")
    async def update_label(self, info: Info, input: UpdateLabelInput) -> UpdateLabelPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            label = await labels.update_label(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.id),
                name=input.name,
                color=input.color,
                description=input.description,
            )
            return {"label": Label.of(label)}

        return await mutate(UpdateLabelPayload, action)

    @strawberry.mutation(description="Delete a label; it comes off every issue.")
    async def delete_label(self, info: Info, id: strawberry.ID) -> DeleteLabelPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            label = await labels.delete_label(
                context.db, context.actor, context.workspace_id, str(id)
            )
            # Issues read earlier in this request carried it.
            context.loaders.labels_of_issue.clear_all()
            return {"label": Label.of(label)}

        return await mutate(DeleteLabelPayload, action)

    @strawberry.mutation(
        description=f"Put labels on an issue (at most {labels.MAX_LABELS_PER_ISSUE} per issue)."
    )
    async def add_labels(self, info: Info, input: AddLabelsInput) -> AddLabelsPayload | None:
        return await mutate(AddLabelsPayload, _label_change(info, input, labels.add_labels))

    @strawberry.mutation(description="Take labels off an issue.")
    async def remove_labels(
        self, info: Info, input: RemoveLabelsInput
    ) -> RemoveLabelsPayload | None:
        return await mutate(RemoveLabelsPayload, _label_change(info, input, labels.remove_labels))


def _label_change(
    info: Info, input: AddLabelsInput | RemoveLabelsInput, change: labels.IssueLabelsChange
) -> Callable[[], Awaitable[dict[str, object]]]:
    from supportdesk.graphql.issues import Issue

    context = info.context

    async def action() -> dict[str, object]:
        issue = await change(
            context.db,
            context.actor,
            context.workspace_id,
            str(input.issue_id),
            [str(label_id) for label_id in input.label_ids],
        )
        # What this request read of the issue's labels before is out of date now (clear
        # of one key raises when the key was never read).
        context.loaders.labels_of_issue.clear_all()
        return {"issue": Issue.of(issue)}

    return action
