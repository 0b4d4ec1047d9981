"""The words of a full-text search query, read alike by every search of the service
(articles, issues): letters and digits, lowercased, each once, never an operator. The
backends stem them and match every one (db/search.py)."""

from __future__ import annotations

import math
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


# A cursor in relevance order holds the position of the last row: `r:<score>:<id>`.
def relevance_key(score: float, row_id: str) -> str:
    return f"r:{score!r}:{row_id}"


def relevance_position(key: str, refusal: str) -> tuple[float, str]:
    """(score, id) from a relevance cursor's key; InvalidArgument(`refusal`) for any other."""
    kind, _, rest = key.partition(":")
    score_text, _, row_id = rest.partition(":")
    try:
        score = float(score_text)
    except ValueError:
        raise InvalidArgument(refusal) from None
    if kind != "r" or not row_id or not math.isfinite(score):
        raise InvalidArgument(refusal)
    return score, row_id
