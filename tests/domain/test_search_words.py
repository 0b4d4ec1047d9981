"""How search queries and "contains" filters are read, as rules of the domain."""

from __future__ import annotations

import pytest

from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.full_text import MAX_WORDS, search_words
from supportdesk.domain.matching import cleaned_query, contains_pattern


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("Reset password", ["reset", "password"]),
        ('"reset" OR password* NEAR(x)', ["reset", "or", "password", "near", "x"]),  # no operators
        ("e-mail snake_case", ["e", "mail", "snake", "case"]),
        ("Café crème 2fa", ["café", "crème", "2fa"]),
        ("password PASSWORD password", ["password"]),
        ("  ?! -- ", []),
        (None, []),
    ],
)
def test_a_query_is_its_words_lowercased_without_syntax(
    query: str | None, words: list[str]
) -> None:
    assert search_words(query) == words


def test_absurd_queries_are_refused() -> None:
    with pytest.raises(InvalidArgument):
        search_words(" ".join(f"w{index}" for index in range(MAX_WORDS + 1)))
    with pytest.raises(InvalidArgument):
        search_words("x" * 501)


@pytest.mark.parametrize(
    ("query", "pattern"),
    [
        ("acme", "%acme%"),
        ("100%", "%100\\%%"),
        ("a_b", "%a\\_b%"),
        ("back\\slash", "%back\\\\slash%"),
    ],
)
def test_contains_takes_wildcards_literally(query: str, pattern: str) -> None:
    assert contains_pattern(query) == pattern


def test_a_blank_contains_query_filters_nothing() -> None:
    assert cleaned_query("   ") is None
    assert cleaned_query(None) is None
    assert cleaned_query(" ACME ") == "acme"
