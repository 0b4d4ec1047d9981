"""The webhook endpoint form (create and edit): what the person chose, read and checked
before the domain acts, and the domain's refusals put next to the field they concern."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.datastructures import FormData

from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode
from supportdesk.domain.events import EVENT_TYPES

# The choices of "Keep the previous secret valid for" when rotating (seconds).
KEEP_PREVIOUS_CHOICES = {"0": "No: stop at once", "86400": "1 day", "604800": "7 days"}
DEFAULT_KEEP_PREVIOUS = "86400"

_FIELD_NAMES = {"eventTypes": "event_types"}
_FIELD_MESSAGES: dict[tuple[str, str], str] = {
    ("url", FieldCode.REQUIRED): "Enter the URL that receives the events.",
    ("url", FieldCode.TOO_LONG): "Keep the URL to 2,048 characters or fewer.",
    ("url", FieldCode.INVALID): "That URL cannot be used.",
    ("description", FieldCode.TOO_LONG): "Keep the description to 500 characters or fewer.",
    ("description", FieldCode.INVALID): "The description contains a character it cannot hold.",
    ("event_types", FieldCode.INVALID): "Choose event types from the list.",
}


_GROUP_NAMES = {"api_key": "API keys", "machine_user": "Machine users"}


def event_groups() -> dict[str, list[str]]:
    """The event types by the object they concern (its name in the plural), in the
    catalogue's order."""
    groups: dict[str, list[str]] = {}
    for kind in EVENT_TYPES:
        thing = kind.split(".", 1)[0]
        name = _GROUP_NAMES.get(thing, thing.replace("_", " ").capitalize() + "s")
        groups.setdefault(name, []).append(kind)
    return groups


@dataclass
class EndpointForm:
    """The form's values, as shown again when something needs fixing."""

    url: str = ""
    description: str = ""
    events: str = "all"  # "all", or "selected" for exactly `event_types`
    event_types: list[str] = field(default_factory=list)
    enabled: bool = True
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, form: FormData) -> EndpointForm:
        def text(name: str) -> str:
            value = form.get(name)
            return value if isinstance(value, str) else ""

        return cls(
            url=text("url"),
            description=text("description"),
            events=text("events") or "all",
            event_types=[kind for kind in form.getlist("event_types") if isinstance(kind, str)],
            enabled=text("enabled") == "true",
        )

    def chosen_types(self) -> list[str]:
        """What the domain takes: empty for every type."""
        return self.event_types if self.events == "selected" else []

    def check(self) -> None:
        """Record what the page itself can tell is wrong; the domain checks again."""
        if not self.url.strip():
            self.errors["url"] = _FIELD_MESSAGES["url", FieldCode.REQUIRED]
        if self.events not in ("all", "selected"):
            self.errors["event_types"] = "Choose All events or Selected events."
        elif self.events == "selected" and not self.event_types:
            self.errors["event_types"] = "Choose at least one event type, or All events."
        unknown = sorted(set(self.chosen_types()) - set(EVENT_TYPES))
        if unknown:
            self.errors["event_types"] = f"Unknown event types: {', '.join(unknown)}."

    def explain(self, error: DomainError) -> None:
        """Put a domain error next to the field it concerns (an unsafe URL says why)."""
        for problem in error.fields:
            name = _FIELD_NAMES.get(problem.field, problem.field)
            if problem.code == FieldCode.UNSAFE_URL:
                self.errors[name] = error.message
            else:
                self.errors[name] = _FIELD_MESSAGES.get((name, problem.code), error.message)
        if not self.errors:
            self.errors["form"] = error.message


def status_of(error: DomainError) -> int:
    """The HTTP status of a page that shows a domain refusal."""
    if error.code == ErrorCode.NOT_FOUND:
        return 404
    if error.code == ErrorCode.LIMIT_REACHED:
        return 409
    if error.code == ErrorCode.NOT_CONFIGURED:
        return 503
    return 400
