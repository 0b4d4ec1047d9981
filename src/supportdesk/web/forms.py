"""The "Create key" form: what the person chose, read and checked before the domain acts."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from supportdesk.auth.scopes import PRESETS, SCOPES
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode

ACCESS_CHOICES = {
    "full_access": "Full access",
    "read_only": "Read-only",
    "custom": "Custom",
}
EXPIRY_CHOICES = {
    "never": "Never",
    "7": "In 7 days",
    "30": "In 30 days",
    "90": "In 90 days",
    "365": "In 1 year",
    "date": "On a date…",
}
MAX_NAME_LENGTH = 100
_FIELD_NAMES = {"expiresAt": "expires", "machineUserId": "machine_user_id"}
_FIELD_MESSAGES: dict[tuple[str, str], str] = {
    ("name", FieldCode.REQUIRED): "Give the key a name, e.g. the system that will use it.",
    ("name", FieldCode.TOO_LONG): "Keep the name to 100 characters or fewer.",
    ("scopes", FieldCode.REQUIRED): "Choose at least one scope.",
    ("expires", FieldCode.INVALID): "The expiry must be in the future.",
}


@dataclass
class KeyForm:
    """The form's values, as shown again when something needs fixing."""

    name: str = ""
    access: str = "full_access"
    scopes: list[str] = field(default_factory=list)
    machine_user_id: str = ""
    expires: str = "never"
    expires_on: str = ""
    errors: dict[str, str] = field(default_factory=dict)

    def granted_scopes(self) -> list[str]:
        if self.access == "custom":
            return self.scopes
        return list(PRESETS.get(self.access, ()))

    def expires_at(self, at: datetime) -> datetime | None:
        """None for "never"; a chosen date means the key works through that day (UTC)."""
        if self.expires in ("never", ""):
            return None
        if self.expires == "date":
            day = date.fromisoformat(self.expires_on)
            return datetime.combine(day + timedelta(days=1), time(), UTC)
        return at + timedelta(days=int(self.expires))

    def check(self, at: datetime) -> None:
        """Record what the page itself can tell is wrong, so every field's problem shows at
        once; the domain checks again."""
        if not self.name.strip():
            self.errors["name"] = _FIELD_MESSAGES["name", FieldCode.REQUIRED]
        elif len(self.name.strip()) > MAX_NAME_LENGTH:
            self.errors["name"] = _FIELD_MESSAGES["name", FieldCode.TOO_LONG]
        if self.access not in ACCESS_CHOICES:
            self.errors["access"] = "Choose Full access, Read-only or Custom."
        unknown = sorted(set(self.scopes) - set(SCOPES))
        if self.access == "custom" and unknown:
            self.errors["scopes"] = f"Unknown scopes: {', '.join(unknown)}."
        elif self.access == "custom" and not self.scopes:
            self.errors["scopes"] = _FIELD_MESSAGES["scopes", FieldCode.REQUIRED]
        if self.expires not in EXPIRY_CHOICES:
            self.errors["expires"] = "Choose when the key expires."
        elif self.expires == "date":
            try:
                expiry = self.expires_at(at)
            except ValueError:
                self.errors["expires"] = "Pick the date the key stops working."
            else:
                if expiry is not None and expiry <= at:
                    self.errors["expires"] = _FIELD_MESSAGES["expires", FieldCode.INVALID]

    def explain(self, error: DomainError) -> None:
        """Put a domain error next to the field it concerns."""
        if error.code == ErrorCode.NOT_FOUND:
            self.errors["machine_user_id"] = "That machine user does not exist in this workspace."
        for problem in error.fields:
            name = _FIELD_NAMES.get(problem.field, problem.field)
            self.errors[name] = _FIELD_MESSAGES.get((name, problem.code), error.message)
        if not self.errors:
            self.errors["form"] = error.message
