"""The secret format (CONTRACT section 9): prefix, body, base62 CRC32 checksum, SHA-256."""

from __future__ import annotations

import hashlib
import re
import zlib

import pytest

from supportdesk.auth.keys import (
    BASE62,
    checksum,
    generate_secret,
    hash_secret,
    key_prefix,
    kind_of_wellformed,
)

STANDARD = re.compile(r"\Asvc_mk_[0-9A-Za-z]{32}[0-9A-Za-z]{6}\Z")
LEGACY = re.compile(r"\Asvc_live_[0-9A-Za-z]{32}[0-9A-Za-z]{6}\Z")


def from_base62(text: str) -> int:
    value = 0
    for char in text:
        value = value * 62 + BASE62.index(char)
    return value


def test_a_standard_secret_is_prefix_32_random_base62_and_a_6_char_checksum() -> None:
    secret = generate_secret()

    assert STANDARD.match(secret), secret
    assert kind_of_wellformed(secret) == "standard"


def test_a_legacy_secret_has_the_svc_live_prefix() -> None:
    secret = generate_secret("legacy")

    assert LEGACY.match(secret), secret
    assert kind_of_wellformed(secret) == "legacy"


def test_the_checksum_is_the_crc32_of_the_text_before_it_in_base62() -> None:
    secret = generate_secret()
    body, check = secret[:-6], secret[-6:]

    assert from_base62(check) == zlib.crc32(body.encode())


def test_the_alphabet_is_digits_then_upper_then_lower_case() -> None:
    assert BASE62 == "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def test_a_small_crc32_is_left_padded_with_zeros_to_6_characters() -> None:
    # The first body (in a fixed order) whose CRC32 needs fewer than six base62 digits.
    body = next(
        text
        for text in (f"svc_mk_{n:032d}" for n in range(10_000))
        if zlib.crc32(text.encode()) < 62**5
    )

    check = checksum(body)

    assert len(check) == 6
    assert check.startswith("0")
    assert from_base62(check) == zlib.crc32(body.encode())


def test_a_crc32_of_zero_is_six_zeros() -> None:
    # CRC32 of the empty string is 0: the padding alone makes the checksum.
    assert checksum("") == "000000"


@pytest.mark.parametrize("kind", ["standard", "legacy"])
def test_changing_any_one_character_after_the_prefix_breaks_the_checksum(kind: str) -> None:
    secret = generate_secret(kind)  # type: ignore[arg-type]
    start = len("svc_mk_") if kind == "standard" else len("svc_live_")

    for position in range(start, len(secret)):
        for replacement in {"0", "a", "Z", BASE62[(BASE62.index(secret[position]) + 1) % 62]}:
            if replacement == secret[position]:
                continue
            changed = secret[:position] + replacement + secret[position + 1 :]
            assert kind_of_wellformed(changed) is None, (position, changed)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "svc_mk_",
        "svc_xx_" + "a" * 38,
        "SVC_MK_" + "a" * 38,
        "svc_mk_" + "a" * 37,
        "svc_mk_" + "a" * 39,
        "svc_mk_" + "a" * 31 + "-" + "a" * 6,
        " " + "svc_mk_" + "a" * 38,
    ],
)
def test_text_that_is_not_shaped_like_a_key_is_refused(text: str) -> None:
    assert kind_of_wellformed(text) is None


def test_swapping_the_prefix_of_a_key_breaks_its_checksum() -> None:
    secret = generate_secret()

    assert kind_of_wellformed("svc_live_" + secret[len("svc_mk_") :]) is None


def test_the_key_prefix_is_the_first_12_characters() -> None:
    secret = generate_secret()

    assert key_prefix(secret) == secret[:12]
    assert len(key_prefix(secret)) == 12
    assert key_prefix(secret).startswith("svc_mk_")


def test_secrets_differ_each_time() -> None:
    assert len({generate_secret() for _ in range(200)}) == 200


def test_only_the_sha256_hex_of_a_secret_is_kept() -> None:
    secret = generate_secret()

    digest = hash_secret(secret)

    assert digest == hashlib.sha256(secret.encode()).hexdigest()
    assert len(digest) == 64
    assert secret not in digest
