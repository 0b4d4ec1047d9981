"""The Validator: every bad field named at once, with the contract's field codes."""

from __future__ import annotations

import pytest

from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, FieldError
from supportdesk.domain.validation import Validator


def test_text_is_trimmed() -> None:
    assert Validator().text("name", "  Billing  ", 100, required=True) == "Billing"


@pytest.mark.parametrize(
    ("value", "required", "code"),
    [
        (None, True, FieldCode.REQUIRED),
        ("   ", True, FieldCode.REQUIRED),
        ("x" * 11, False, FieldCode.TOO_LONG),
        ("nul\x00inside", False, FieldCode.INVALID),
    ],
)
def test_bad_text_is_recorded(value: str | None, required: bool, code: FieldCode) -> None:
    check = Validator()

    check.text("name", value, 10, required=required)

    assert check.errors == [FieldError("name", code)]


def test_absent_optional_text_is_fine() -> None:
    check = Validator()

    assert check.text("description", None, 10, required=False) is None
    assert check.errors == []


@pytest.mark.parametrize("value", ["ada", "ada@", "@example.com", "ada@example", "a da@x.io"])
def test_an_address_without_a_dotted_domain_is_invalid(value: str) -> None:
    check = Validator()

    check.email("email", value, required=True)

    assert check.errors == [FieldError("email", FieldCode.INVALID)]


@pytest.mark.parametrize(
    "value",
    ["ceo,x@evil.example", "ceo(x)@evil.example", '"quoted"@x.io', "a;b@x.io", "a<b@x.io"],
)
def test_an_address_that_reads_as_another_is_invalid(value: str) -> None:
    # A comma makes two addresses of one, a parenthesis a comment: the mail would go to
    # an address that was never given.
    check = Validator()

    check.email("email", value, required=True)

    assert check.errors == [FieldError("email", FieldCode.INVALID)]


@pytest.mark.parametrize("value", ["o'brien+tag@x.io", "zoë@x.io", "a.b-c_d@sub.x.io"])
def test_ordinary_addresses_are_valid(value: str) -> None:
    check = Validator()

    assert check.email("email", value, required=True) == value
    assert check.errors == []


def test_an_address_gets_one_error_even_when_two_rules_break() -> None:
    check = Validator()

    check.email("email", "no-at-sign\x00", required=True)

    assert check.errors == [FieldError("email", FieldCode.INVALID)]


def test_check_names_every_bad_field_at_once() -> None:
    check = Validator()
    check.text("name", "", 10, required=True)
    check.email("email", "nope", required=True)

    with pytest.raises(DomainError) as raised:
        check.check()

    assert raised.value.code is ErrorCode.VALIDATION_FAILED
    assert raised.value.fields == [
        FieldError("name", FieldCode.REQUIRED),
        FieldError("email", FieldCode.INVALID),
    ]
    assert raised.value.message == "Invalid input: email, name. email is not an e-mail address."
