"""The audit log: who did what to which key or machine user, when, from where."""

from supportdesk.domain.audit.service import (
    CLI_ACTOR,
    SYSTEM_ACTOR,
    Actor,
    AuditEvent,
    count_audit_events,
    get_audit_events,
    key_actor,
    list_audit_events,
    record,
)

__all__ = [
    "CLI_ACTOR",
    "SYSTEM_ACTOR",
    "Actor",
    "AuditEvent",
    "count_audit_events",
    "get_audit_events",
    "key_actor",
    "list_audit_events",
    "record",
]
