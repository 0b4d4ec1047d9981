"""Identifiers: a type prefix and a time-sortable ULID (CONTRACT section 1)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from supportdesk.domain.ids import PREFIXES, _encode, is_id_of, new_id, type_of

AT = datetime(2026, 11, 22, 13, 45, 7, 123000, tzinfo=UTC)
CONTRACT_PREFIXES = {
    "Issue": "iss",
    "Message": "msg",
    "Contact": "ct",
    "Account": "acc",
    "Article": "art",
    "MachineUser": "mu",
    "ApiKey": "key",
    "Workspace": "ws",
    "Member": "mem",
    "Label": "lbl",
}


@pytest.mark.parametrize(("type_name", "prefix"), sorted(CONTRACT_PREFIXES.items()))
def test_an_id_starts_with_its_types_prefix(type_name: str, prefix: str) -> None:
    identifier = new_id(type_name, AT)

    assert re.fullmatch(rf"{prefix}_[0-9A-HJKMNP-TV-Z]{{26}}", identifier), identifier
    assert PREFIXES[type_name] == prefix


@pytest.mark.parametrize("type_name", sorted(PREFIXES))
def test_type_of_names_the_type_of_each_kind_of_id(type_name: str) -> None:
    identifier = new_id(type_name, AT)

    assert type_of(identifier) == type_name
    assert is_id_of(identifier, type_name)


def test_is_id_of_refuses_an_id_of_another_type() -> None:
    assert not is_id_of(new_id("ApiKey", AT), "MachineUser")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "garbage",
        "mu_",
        "mu_123",
        "xyz_01JD0000000000000000000000",  # unknown prefix
        "MU_01JD0000000000000000000000",  # prefixes are lower case
        "mu_01jd0000000000000000000000",  # the ULID is upper case
        "mu_01JD000000000000000000000I",  # I is not Crockford base32
        "mu_01JD00000000000000000000000",  # 27 characters
        " mu_01JD0000000000000000000000",
        "mu_01JD0000000000000000000000\n",
    ],
)
def test_type_of_is_none_for_anything_that_is_not_one_of_our_ids(text: str) -> None:
    assert type_of(text) is None


def test_ids_sort_by_the_moment_they_were_made_for() -> None:
    moments = [AT + timedelta(milliseconds=step * 7) for step in range(50)]

    ids = [new_id("Issue", moment) for moment in moments]

    assert sorted(ids) == ids


def test_ids_made_in_the_same_millisecond_still_increase() -> None:
    later = AT + timedelta(days=400)

    ids = [new_id("Issue", later) for _ in range(1000)]

    assert sorted(ids) == ids
    assert len(set(ids)) == 1000


def test_an_id_for_an_earlier_moment_sorts_before_a_later_one_made_first() -> None:
    """A far-future id made first must not pin the ids made after it to its millisecond."""
    future = new_id("Issue", AT + timedelta(days=900))

    earlier = [new_id("Issue", AT + timedelta(milliseconds=step)) for step in range(3)]

    assert sorted([*earlier, future]) == [*earlier, future]


def test_the_time_part_of_an_id_encodes_its_millisecond() -> None:
    later = AT + timedelta(days=800)
    crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

    ulid = new_id("Message", later).split("_", 1)[1]
    milliseconds = 0
    for char in ulid[:10]:
        milliseconds = milliseconds * 32 + crockford.index(char)

    assert milliseconds == int(later.timestamp() * 1000)


def test_ids_for_one_moment_increase_even_when_later_moments_come_between() -> None:
    # A batch names its rows for the moment it started while other requests take ids
    # for later moments: the batch's ids must still sort in the order they were made.
    batch = []
    for step in range(50):
        batch.append(new_id("Article", AT))
        new_id("Issue", AT + timedelta(milliseconds=step + 1))

    assert batch == sorted(batch)


@pytest.mark.parametrize(
    ("number", "written"),
    [
        (0, "0" * 26),
        (31, "0" * 25 + "Z"),
        (32, "0" * 24 + "10"),
        (2**128 - 1, "7" + "Z" * 25),
        (0x0123456789ABCDEF << 64 | 0xFEDCBA9876543210, "014D2PF2DBSQQZXQ5TK1V58CGG"),
    ],
)
def test_a_ulid_is_its_number_in_crockford_base32_over_26_digits(number: int, written: str) -> None:
    assert _encode(number) == written
