"""The scope catalogue, presets and normalisation (CONTRACT section 2)."""

from __future__ import annotations

from supportdesk.auth.scopes import (
    ADMIN_SCOPES,
    LEGACY_SCOPES,
    PRESETS,
    SCOPES,
    normalise_scopes,
    unknown_scopes,
)

CONTRACT_SCOPES = {
    "issues:read",
    "issues:create",
    "issues:write",
    "thread:reply",
    "contacts:read",
    "contacts:write",
    "accounts:read",
    "accounts:write",
    "articles:read",
    "articles:write",
    "machine_users:manage",
    "api_keys:manage",
    "audit:read",
    "webhooks:manage",
    "members:read",
    "members:manage",
    "mailboxes:manage",
}


def test_the_catalogue_is_the_contracts_list() -> None:
    assert set(SCOPES) == CONTRACT_SCOPES


def test_full_access_is_every_scope_sorted() -> None:
    assert PRESETS["full_access"] == tuple(sorted(CONTRACT_SCOPES))


def test_read_only_is_the_five_read_scopes_and_no_admin_scope() -> None:
    assert PRESETS["read_only"] == (
        "accounts:read",
        "articles:read",
        "contacts:read",
        "issues:read",
        "members:read",
    )
    assert not ADMIN_SCOPES & set(PRESETS["read_only"])


def test_admin_scopes_and_the_legacy_scope() -> None:
    assert {
        "machine_users:manage",
        "api_keys:manage",
        "audit:read",
        "webhooks:manage",
        "members:manage",
        "mailboxes:manage",
    } == ADMIN_SCOPES
    assert LEGACY_SCOPES == ("issues:create",)


def test_scopes_are_trimmed_sorted_and_deduplicated() -> None:
    given = ["issues:write", " issues:read", "issues:read ", "audit:read", "issues:write"]

    assert normalise_scopes(given) == ("audit:read", "issues:read", "issues:write")


def test_no_scopes_normalise_to_none() -> None:
    assert normalise_scopes([]) == ()


def test_unknown_scopes_are_named_sorted_once() -> None:
    given = ["issues:read", "nope:x", "Issues:Read", "nope:x", "admin"]

    assert unknown_scopes(given) == ["Issues:Read", "admin", "nope:x"]
    assert unknown_scopes(CONTRACT_SCOPES) == []
