"""The cache of prepared documents: bounded by count and by characters, and no home for
large documents, so a stream of distinct large queries leaves memory flat."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from graphql import Token

from supportdesk.graphql.documents import (
    CACHE_CHARACTERS,
    CACHE_SIZE,
    MAX_CACHED_CHARACTERS,
    DocumentRunner,
    Prepared,
    RequestError,
)
from supportdesk.graphql.schema import build_schema


def _executor() -> DocumentRunner:
    return DocumentRunner(build_schema()._schema)


def _large(n: int) -> str:
    """A distinct document just over the size that is cached (mostly a comment: cheap to
    parse, and kept whole as the parsed document's source)."""
    return f"query Q{n} {{ __typename }}\n#{'x' * MAX_CACHED_CHARACTERS}"


def test_a_small_document_is_prepared_once() -> None:
    executor = _executor()

    first = executor.prepare("{ apiInfo }")

    assert executor.prepare("{ apiInfo }") is first
    assert executor.cached == (1, len("{ apiInfo }"))


def test_a_large_document_is_prepared_every_time_and_not_kept() -> None:
    executor = _executor()
    document = _large(0)
    assert len(document) > MAX_CACHED_CHARACTERS

    first = executor.prepare(document)

    assert executor.prepare(document) is not first
    assert executor.cached == (0, 0)


def _weak(prepared: Prepared) -> list[weakref.ref[Any]]:
    """References that die with the parsed document and its source text."""
    return [weakref.ref(prepared.document), weakref.ref(prepared.document.loc.source)]  # type: ignore[union-attr]


def test_nothing_of_2000_distinct_large_documents_stays_in_memory() -> None:
    executor = _executor()
    watched: list[weakref.ref[Any]] = []

    for n in range(2_000):
        watched += _weak(executor.prepare(_large(n)))
    gc.collect()

    assert executor.cached == (0, 0)
    assert [ref for ref in watched if ref() is not None] == []


def test_a_cached_document_stays_in_memory() -> None:
    executor = _executor()

    watched = _weak(executor.prepare("{ apiInfo }"))
    gc.collect()

    assert all(ref() is not None for ref in watched)


def test_the_cache_keeps_to_its_characters_and_its_count() -> None:
    executor = _executor()
    padding = "#" + "x" * (MAX_CACHED_CHARACTERS - 40) + "\n"

    for n in range(CACHE_CHARACTERS // len(padding) + 10):
        executor.prepare(f"{padding}query Q{n} {{ apiInfo }}")
        count, characters = executor.cached
        assert characters <= CACHE_CHARACTERS
    for n in range(CACHE_SIZE + 10):
        executor.prepare(f"query S{n} {{ apiInfo }}")

    count, characters = executor.cached
    assert count == CACHE_SIZE and characters <= CACHE_CHARACTERS


def test_a_document_that_does_not_parse_leaves_nothing_to_the_cyclic_collector() -> None:
    """Tokens link to their neighbours both ways: a chain left behind is garbage that only
    the cyclic collector frees, and `serve` runs it seldom (server.py)."""
    executor = _executor()
    broken = "{ issues(filter: {query: [" + '"words" ' * 5_000
    gc.collect()
    gc.disable()
    # Only the tokens count: other threads of the process (a test runner's own) may leave
    # garbage of their own meanwhile.
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        with pytest.raises(RequestError):
            executor.prepare(broken)
        gc.collect()
        left_over = sum(isinstance(found, Token) for found in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()

    assert left_over < 10
