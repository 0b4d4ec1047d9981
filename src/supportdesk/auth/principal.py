"""The authenticated caller, as the rest of the service sees it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Principal:
    """An API key in use: whose it is, which workspace, which scopes."""

    workspace_id: str
    workspace_name: str
    key_id: str
    key_prefix: str
    key_kind: str
    scopes: frozenset[str]
    expires_at: datetime | None
    machine_user_id: str
    machine_user_name: str

    def has_any(self, scopes: frozenset[str]) -> bool:
        return not scopes.isdisjoint(self.scopes)

    @property
    def is_legacy(self) -> bool:
        return self.key_kind == "legacy"
