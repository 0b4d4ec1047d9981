"""Case-insensitive "contains" filters for lists (contacts, accounts)."""

from __future__ import annotations

from sqlalchemy import BindParameter, ColumnElement, bindparam, func, or_

from supportdesk.domain.errors import InvalidArgument

MAX_QUERY = 200
_ESCAPE = "\\"


def contains_pattern(query: str) -> str:
    """A LIKE pattern matching `query` anywhere, its wildcards taken literally."""
    escaped = (
        query.replace(_ESCAPE, _ESCAPE * 2).replace("%", _ESCAPE + "%").replace("_", _ESCAPE + "_")
    )
    return f"%{escaped}%"


def cleaned_query(query: str | None) -> str | None:
    """The query lowercased and trimmed, None when blank; refuses absurd lengths."""
    if query is None or not query.strip():
        return None
    if len(query) > MAX_QUERY:
        raise InvalidArgument(f"`query` may hold at most {MAX_QUERY} characters.")
    return query.strip().lower()


# The name a list binds its `contains_pattern` as (domain/lists.py).
PATTERN = "list_pattern"


def pattern_values(query: str | None) -> dict[str, str]:
    """The bound value of `any_contains` for a list's `query`: none when it is blank."""
    text = cleaned_query(query)
    return {} if text is None else {PATTERN: contains_pattern(text)}


def any_contains(*columns: ColumnElement[str | None]) -> ColumnElement[bool]:
    """True when one of `columns` contains the query whose pattern is bound as PATTERN,
    ignoring case."""
    pattern: BindParameter[str] = bindparam(PATTERN)
    return or_(*(func.lower(column).like(pattern, escape=_ESCAPE) for column in columns))
