"""The keys a process remembers (auth/authenticate.py `KnownKeys`): who a key is, never
whether it is still active, in a bounded map."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from supportdesk.auth.authenticate import KnownKeys
from supportdesk.auth.principal import Principal

PRINCIPAL = Principal(
    workspace_id="ws_1",
    workspace_name="Acme",
    key_id="key_1",
    key_prefix="svc_mk_abcde",
    key_kind="standard",
    scopes=frozenset({"issues:read"}),
    expires_at=None,
    machine_user_id="mu_1",
    machine_user_name="Bridge",
)
USED = datetime(2026, 11, 25, tzinfo=UTC)


def test_a_remembered_key_is_found_by_its_hash_until_forgotten() -> None:
    known = KnownKeys()
    known.remember("hash-1", PRINCIPAL, USED)

    assert known.get("hash-1") == (PRINCIPAL, USED)
    assert known.get("hash-2") is None
    known.forget("hash-1")
    assert known.get("hash-1") is None
    known.forget("hash-1")  # forgetting twice is harmless


def test_the_map_keeps_at_most_its_limit_and_drops_the_first_remembered() -> None:
    known = KnownKeys()
    known.LIMIT = 3
    for n in range(3):
        known.remember(f"hash-{n}", replace(PRINCIPAL, key_id=f"key_{n}"), None)
    known.remember("hash-0", PRINCIPAL, USED)  # looked up again: its last use moves

    known.remember("hash-3", replace(PRINCIPAL, key_id="key_3"), None)

    assert known.get("hash-0") is None
    assert [known.get(f"hash-{n}") is not None for n in (1, 2, 3)] == [True, True, True]
