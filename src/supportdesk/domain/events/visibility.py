"""What one key sees of an event: its data without the fields of the people it may not
read, under the same rule as the API's objects (`PEOPLE`, docs/security.md).

Every reader of the log on a key's behalf (`events`, and the live stream) shows events
through `as_seen_by`. Webhook deliveries carry the whole event: an admin chose where they
go, and the endpoint's owner may see everything a delivery holds."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from supportdesk.auth.permissions import PEOPLE
from supportdesk.domain.events.log import Event

# Where event data holds a person (snapshots.py writes them), by key, and which kind.
_PEOPLE_AT = {"requester": "Contact", "contact": "Contact", "member": "Member"}
# Keys of an assignee: its `type` says whether it is a member (a person) or a machine user.
_ASSIGNEES_AT = frozenset({"assignee", "previousAssignee"})
_ASSIGNEE_KINDS = {"member": "Member"}
# What kind of object a snapshot is: kept like `__typename`.
_ALWAYS_KEPT = frozenset({"type"})
# The `changes` of these events are of a person's own fields.
_CHANGES_OF = {"contact.updated": "Contact", "member.updated": "Member"}

Kept = Mapping[str, frozenset[str]]


def as_seen_by(event: Event, scopes: frozenset[str]) -> Event:
    """The event as a key holding `scopes` may see it: every contact or member in its data
    keeps only the fields any key may read of them, unless the key may read that kind of
    person (contacts:read, members:read)."""
    kept = _kept_for(scopes)
    if not kept:
        return event
    data = _shown(event.data, kept)
    fields = kept.get(_CHANGES_OF.get(event.type, ""))
    if fields is not None and isinstance(data.get("changes"), dict):
        data["changes"] = {name: c for name, c in data["changes"].items() if name in fields}
    return replace(event, data=data)


def hides_people(scopes: frozenset[str]) -> bool:
    """Whether `as_seen_by` may change an event for a key holding `scopes` (a live stream
    asks once, not once per event)."""
    return bool(_kept_for(scopes))


@functools.lru_cache(maxsize=256)
def _kept_for(scopes: frozenset[str]) -> Kept:
    """Per kind of person the key may not read, the fields it still sees (asked once per
    event per open stream: a live stream's keys hold few sets of scopes)."""
    return {kind: rule.anyones for kind, rule in PEOPLE.items() if rule.required.isdisjoint(scopes)}


def _kind_at(key: str, value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    if key in _ASSIGNEES_AT:
        return _ASSIGNEE_KINDS.get(str(value.get("type")))
    return _PEOPLE_AT.get(key)


def _shown(value: Any, kept: Kept) -> Any:
    if isinstance(value, list):
        return [_shown(item, kept) for item in value]
    if not isinstance(value, dict):
        return value
    shown: dict[str, Any] = {}
    for key, item in value.items():
        kind = _kind_at(key, item)
        if kind is not None and kind in kept:
            fields = kept[kind] | _ALWAYS_KEPT
            shown[key] = {name: field for name, field in item.items() if name in fields}
        else:
            shown[key] = _shown(item, kept)
    return shown
