"""Page requests and opaque cursors (CONTRACT section 5)."""

from __future__ import annotations

import base64

import pytest

from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.pagination import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    PageRequest,
    decode_cursor,
    encode_cursor,
    page_of,
)

KEY = "mu_01JD4Z1T8YQ0V5X2N7C3B6M9K4"


def test_a_cursor_round_trips_to_the_key_it_was_made_from() -> None:
    assert decode_cursor(encode_cursor(KEY)) == KEY


def test_a_cursor_is_opaque_and_url_safe() -> None:
    cursor = encode_cursor(KEY)

    assert KEY not in cursor
    assert "=" not in cursor
    assert all(char.isalnum() or char in "-_" for char in cursor)


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage!",
        "@@@@",
        "YQ",  # base64 of "a": no version marker
        base64.urlsafe_b64encode(b"c2:" + KEY.encode()).decode(),
        base64.urlsafe_b64encode(b"\xff\xfe\xfd").decode(),
        encode_cursor("x" * 300),
        "a",  # not a whole base64 quantum
        encode_cursor("mu_\x00"),  # no key of ours holds a control character
    ],
)
def test_a_cursor_this_api_did_not_give_out_is_refused(cursor: str) -> None:
    with pytest.raises(InvalidArgument, match="cursor"):
        decode_cursor(cursor)


def test_first_defaults_to_25() -> None:
    assert PageRequest.of(None, None) == PageRequest(DEFAULT_PAGE_SIZE, None)
    assert DEFAULT_PAGE_SIZE == 25


@pytest.mark.parametrize("first", [0, 1, 100])
def test_first_from_0_to_100_is_accepted(first: int) -> None:
    assert PageRequest.of(first, None).first == first


@pytest.mark.parametrize("first", [-1, 101, 1000])
def test_first_outside_0_to_100_is_refused_not_clamped(first: int) -> None:
    assert MAX_PAGE_SIZE == 100
    with pytest.raises(InvalidArgument, match="first"):
        PageRequest.of(first, None)


def test_a_page_request_holds_the_key_of_its_cursor() -> None:
    assert PageRequest.of(10, encode_cursor(KEY)) == PageRequest(10, KEY)


def test_a_page_is_the_first_n_rows_and_the_extra_row_says_there_is_more() -> None:
    assert page_of([1, 2, 3], 2).items == [1, 2]
    assert page_of([1, 2, 3], 2).has_next
    assert page_of([1, 2], 2).items == [1, 2]
    assert not page_of([1, 2], 2).has_next
    assert not page_of([], 0).has_next
