"""Errors as clients see them (docs/api.md): payload errors for domain failures of
mutations, top-level GraphQL errors with `extensions.code` for everything else."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import strawberry
from graphql import GraphQLError

from supportdesk.domain.errors import DomainError, InvalidArgument


@strawberry.type(description="A field of the input that was refused, and why.")
class FieldError:
    field: str
    code: str


@strawberry.type(
    description="Why a mutation did not happen. `code` is one of the contract's codes."
)
class MutationError:
    code: str
    message: str
    fields: list[FieldError]

    @classmethod
    def of(cls, error: DomainError) -> MutationError:
        return cls(
            code=str(error.code),
            message=error.message,
            fields=[FieldError(field=f.field, code=str(f.code)) for f in error.fields],
        )


def graphql_error(code: str, message: str, **extensions: Any) -> GraphQLError:
    return GraphQLError(message, extensions={"code": code, **extensions})


def forbidden(required: frozenset[str], legacy: bool) -> GraphQLError:
    if legacy:
        message = "Legacy svc_live_ keys may only call createIssue; use a svc_mk_ key with scopes."
    elif required:
        message = f"This key lacks the scope for this field; any of: {', '.join(sorted(required))}."
    else:
        message = "This key may not use this field."
    return graphql_error("FORBIDDEN", message, requiredScopes=sorted(required))


def code_of(error: GraphQLError) -> tuple[str, dict[str, Any]]:
    """The contract code of an error raised while executing, and extra extensions."""
    original = error.original_error
    if isinstance(original, DomainError):
        return str(original.code), {}
    if isinstance(original, InvalidArgument):
        return "BAD_USER_INPUT", dict(original.extensions)
    if original is None or isinstance(original, GraphQLError):
        extensions = dict(error.extensions or {})
        return str(extensions.pop("code", "BAD_USER_INPUT")), extensions
    return "INTERNAL_SERVER_ERROR", {}


P = TypeVar("P")


async def mutate(payload: Callable[..., P], action: Callable[[], Awaitable[dict[str, Any]]]) -> P:
    """Run a domain action; a DomainError becomes the payload's `error` (one place for all)."""
    try:
        return payload(**await action(), error=None)
    except DomainError as error:
        return payload(error=MutationError.of(error))
