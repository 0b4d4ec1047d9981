"""Labels (docs/working-issues.md), as the rest of the service sees them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from supportdesk.db import positional
from supportdesk.db.tables import labels

# Most labels one issue carries.
MAX_LABELS_PER_ISSUE = 20


@dataclass(frozen=True, slots=True)
class Label:
    id: str
    workspace_id: str
    name: str
    color: str
    description: str
    created_at: datetime
    updated_at: datetime


LABEL_COLUMNS = (
    labels.c.id,
    labels.c.workspace_id,
    labels.c.name,
    labels.c.color,
    labels.c.description,
    labels.c.created_at,
    labels.c.updated_at,
)
label_of = positional(Label, LABEL_COLUMNS)
