"""Page requests and opaque cursors (CONTRACT section 5)."""

from __future__ import annotations

import base64

import pytest

from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.pagination import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    Cursors,
    PageRequest,
    page_of,
)

KEY = "mu_01JD4Z1T8YQ0V5X2N7C3B6M9K4"
CURSORS = Cursors(b"k" * 32, "ws_one")
LISTED = "MachineUser"  # the type of the list KEY is a position in


def test_a_cursor_round_trips_to_the_key_it_was_made_from() -> None:
    assert CURSORS.decode(CURSORS.encode(KEY), LISTED) == KEY


def test_a_cursor_is_opaque_and_url_safe() -> None:
    cursor = CURSORS.encode(KEY)

    assert KEY not in cursor
    assert "=" not in cursor
    assert all(char.isalnum() or char in "-_" for char in cursor)


def _forged(text: bytes) -> str:
    return base64.urlsafe_b64encode(text).decode().rstrip("=")


def _altered(cursor: str) -> str:
    raw = bytearray(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    raw[3] ^= 1
    return _forged(bytes(raw))


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage!",
        "@@@@",
        "YQ",  # base64 of "a": too short to hold a signature
        _forged(b"c1:" + KEY.encode()),  # an unsigned cursor of before
        _forged(KEY.encode() + b"\x00" * 12),  # a position with a made-up signature
        _altered(CURSORS.encode(KEY)),  # one bit of the position changed
        Cursors(b"k" * 32, "ws_two").encode(KEY),  # another workspace's
        Cursors(b"x" * 32, "ws_one").encode(KEY),  # another deployment's
        CURSORS.encode("x" * 300),
        "a",  # not a whole base64 quantum
        "é" * 8,
    ],
)
def test_a_cursor_this_api_did_not_give_out_is_refused(cursor: str) -> None:
    with pytest.raises(InvalidArgument, match="cursor"):
        CURSORS.decode(cursor, LISTED)


@pytest.mark.parametrize(
    ("position", "listed"),
    [
        (KEY, "MachineUser"),
        ("r:0.5:iss_01JD4Z1T8YQ0V5X2N7C3B6M9K4", "Issue"),  # by relevance
        ("ud:1763900000123000:iss_01JD4Z1T8YQ0V5X2N7C3B6M9K4", "Issue"),  # by change
        ("12", "Event"),  # events are read by sequence
    ],
)
def test_a_cursor_is_taken_by_the_list_that_gave_it_out(position: str, listed: str) -> None:
    assert CURSORS.decode(CURSORS.encode(position), listed) == position


@pytest.mark.parametrize(
    ("position", "listed"),
    [
        (KEY, "Issue"),
        ("iss_01JD4Z1T8YQ0V5X2N7C3B6M9K4", "Message"),
        ("r:0.5:art_01JD4Z1T8YQ0V5X2N7C3B6M9K4", "Issue"),
        ("12", "Issue"),
        (KEY, "Event"),
        ("１２", "Event"),  # not ASCII digits
    ],
)
def test_a_cursor_of_another_list_is_refused(position: str, listed: str) -> None:
    with pytest.raises(InvalidArgument, match="cursor"):
        CURSORS.decode(CURSORS.encode(position), listed)


def test_first_defaults_to_25() -> None:
    assert PageRequest.of(None, None, CURSORS, LISTED) == PageRequest(DEFAULT_PAGE_SIZE, None)
    assert DEFAULT_PAGE_SIZE == 25


@pytest.mark.parametrize("first", [0, 1, 100])
def test_first_from_0_to_100_is_accepted(first: int) -> None:
    assert PageRequest.of(first, None, CURSORS, LISTED).first == first


@pytest.mark.parametrize("first", [-1, 101, 1000])
def test_first_outside_0_to_100_is_refused_not_clamped(first: int) -> None:
    assert MAX_PAGE_SIZE == 100
    with pytest.raises(InvalidArgument, match="first"):
        PageRequest.of(first, None, CURSORS, LISTED)


def test_a_page_request_holds_the_key_of_its_cursor() -> None:
    assert PageRequest.of(10, CURSORS.encode(KEY), CURSORS, LISTED) == PageRequest(10, KEY)


def test_a_page_is_the_first_n_rows_and_the_extra_row_says_there_is_more() -> None:
    assert page_of([1, 2, 3], 2).items == [1, 2]
    assert page_of([1, 2, 3], 2).has_next
    assert page_of([1, 2], 2).items == [1, 2]
    assert not page_of([1, 2], 2).has_next
    assert not page_of([], 0).has_next
