"""The words of a full-text search query, read alike by every search of the service
(articles, issues): letters and digits, lowercased, each once, never an operator. The
backends stem them and match every one (db/search.py)."""

from __future__ import annotations

import re

from supportdesk.domain.errors import InvalidArgument

MAX_QUERY = 500
MAX_WORDS = 32
# Words as both backends' tokenizers see them: letters and digits; `_` separates.
_WORD = re.compile(r"[^\W_]+")


def search_words(query: str | None) -> list[str]:
    """The words of a search query; none means no search at all."""
    if query is None:
        return []
    if len(query) > MAX_QUERY:
        raise InvalidArgument(f"`query` may hold at most {MAX_QUERY} characters.")
    words = list(dict.fromkeys(_WORD.findall(query.lower())))
    if len(words) > MAX_WORDS:
        raise InvalidArgument(f"`query` may hold at most {MAX_WORDS} words.")
    return words
