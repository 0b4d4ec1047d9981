"""Org admin passwords are Argon2id."""

from __future__ import annotations

from supportdesk.auth.passwords import hash_password, verify_password


def test_a_password_hash_is_argon2id_and_salted() -> None:
    first = hash_password("correct horse battery")
    second = hash_password("correct horse battery")

    assert first.startswith("$argon2id$")
    assert first != second
    assert "correct horse battery" not in first


def test_only_the_right_password_verifies() -> None:
    stored = hash_password("correct horse battery")

    assert verify_password(stored, "correct horse battery")
    assert not verify_password(stored, "correct horse batterY")
    assert not verify_password(None, "correct horse battery")
    assert not verify_password("not a hash", "correct horse battery")
