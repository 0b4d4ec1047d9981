"""Running GraphQL documents: parsed, validated and measured documents are cached, errors
are shaped to the contract, and anything unexpected is masked for the client and logged in
full."""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from inspect import isawaitable
from typing import Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    FieldNode,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLSchema,
    GraphQLSyntaxError,
    OperationDefinitionNode,
    OperationType,
    Source,
    StringValueNode,
    Token,
    execute,
    specified_rules,
    validate,
)
from graphql.language import Lexer
from graphql.language.parser import Parser
from graphql.validation import ValidationRule

from supportdesk.db import DatabaseUnavailable
from supportdesk.graphql.context import Context
from supportdesk.graphql.cost import Cost, cost_of
from supportdesk.graphql.errors import code_of
from supportdesk.graphql.execution import ExecutionContext
from supportdesk.graphql.limits import (
    LimitExceeded,
    Limits,
    check_cost,
    check_response,
    check_shape,
    check_text,
)

logger = logging.getLogger("supportdesk.graphql")

# The cache of prepared documents is bounded by count and by text: a parsed document holds
# its tokens and nodes, up to ~60 bytes per character of a dense query. Larger documents are
# prepared on every request instead: integrations send small ones over and over.
CACHE_SIZE = 1024
CACHE_CHARACTERS = 1024 * 1024
MAX_CACHED_CHARACTERS = 8 * 1024
# graphql-core says so when the parser stops at `max_tokens` (graphql-core is pinned to
# its minor version; tests/http/test_query_limits.py checks the message still reads so).
_TOO_MANY_TOKENS = "Syntax Error: Document contains more than"
# At most 20 errors for one document (docs/http-and-limits.md): graphql-core stops at
# `max_errors` and adds one that says it stopped.
MAX_VALIDATION_ERRORS = 20


class RequestError(Exception):
    """The document cannot run at all (parse, validation, limits, operation choice)."""

    def __init__(
        self,
        code: str,
        errors: list[dict[str, Any]],
        status: int = 400,
        extensions: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(code)
        self.code = code
        self.errors = errors
        self.status = status
        self.extensions = extensions

    def again(self) -> RequestError:
        """The same refusal for another request. A cached refusal is never raised itself:
        each raise would add that request's frames to its traceback, and keep them."""
        return RequestError(self.code, self.errors, self.status, self.extensions)

    @property
    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"errors": self.errors}
        if self.extensions:
            body["extensions"] = self.extensions
        return body


@dataclass(frozen=True, slots=True)
class Operation:
    node: OperationDefinitionNode
    cost: Cost

    @property
    def name(self) -> str | None:
        return self.node.name.value if self.node.name else None

    @property
    def is_mutation(self) -> bool:
        return self.node.operation is not OperationType.QUERY

    @property
    def is_subscription(self) -> bool:
        return self.node.operation is OperationType.SUBSCRIPTION


@dataclass(frozen=True, slots=True)
class Prepared:
    document: DocumentNode
    operations: dict[str | None, Operation]
    # Runs this document; it keeps the document's execution plans (execution.py).
    execution_context: type[ExecutionContext]
    # Its fragments by name, and its compiled-answer plans (compiled.py).
    fragments: dict[str, FragmentDefinitionNode] = field(default_factory=dict)
    answer_plans: dict[Any, Any] = field(default_factory=dict)

    def operation(self, name: str | None) -> Operation:
        if name is None and len(self.operations) > 1:
            raise RequestError(
                "BAD_USER_INPUT",
                [
                    _error(
                        "BAD_USER_INPUT",
                        "The document has several operations: send `operationName`.",
                    )
                ],
            )
        found = (
            self.operations.get(name) if name is not None else next(iter(self.operations.values()))
        )
        if found is None:
            raise RequestError(
                "BAD_USER_INPUT", [_error("BAD_USER_INPUT", f"Unknown operation {name!r}.")]
            )
        return found


def subscriptions_elsewhere() -> RequestError:
    """A subscription sent as a plain request: it is answered over a stream only."""
    return RequestError(
        "BAD_USER_INPUT",
        [
            _error(
                "BAD_USER_INPUT",
                "Subscriptions run over a stream: graphql-transport-ws (WebSocket) at"
                " /graphql, or graphql-sse at POST /graphql/stream.",
            )
        ],
    )


def _error(code: str, message: str, **extensions: Any) -> dict[str, Any]:
    return {"message": _cut(message), "extensions": {"code": code, **extensions}}


# graphql-core quotes the text it complains about whole: a string literal that does not
# parse or fit, a name that is unknown. Such a quote is cut to its first characters, and
# what a quote inside the text itself would hide from that, by the message's length.
QUOTE_KEPT = 100
MESSAGE_KEPT = 1000
_LONG_QUOTE = re.compile(rf"""(['"])([^'"]{{{QUOTE_KEPT}}})[^'"]++(?=['"])""")


def _cut(message: str) -> str:
    message = _LONG_QUOTE.sub(r"\1\2…", message)
    return message if len(message) <= MESSAGE_KEPT else message[:MESSAGE_KEPT] + "…"


def _any_answered(data: dict[str, Any] | None) -> bool:
    return any(value is not None for value in (data or {}).values())


def _located(error: GraphQLError, code: str) -> dict[str, Any]:
    shaped = _error(code, error.message)
    if error.locations:
        shaped["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    return shaped


def _too_complex(exceeded: LimitExceeded, **response_extensions: Any) -> RequestError:
    return RequestError(
        "QUERY_TOO_COMPLEX",
        [_error("QUERY_TOO_COMPLEX", str(exceeded), **exceeded.extensions)],
        extensions=response_extensions or None,
    )


def _too_many_tokens(maximum: int) -> LimitExceeded:
    # The parser stops at the first token past the limit: how many more there were is unknown.
    return LimitExceeded(
        "tokens",
        maximum + 1,
        maximum,
        f"The query has more than {maximum:,} tokens, the limit; parsing stopped there.",
    )


def parse_unlinked(query: str, max_tokens: int) -> DocumentNode:
    """graphql-core's `parse`, leaving no chain of tokens behind. The lexer links every token
    to its neighbours both ways, and nodes keep only their first and last: once a parse
    fails, the chain is garbage only the cyclic collector frees, up to 10,000 objects
    holding every value of the document, and nothing that tells the collector so (it counts
    objects, not bytes). Unlinked, each token goes with the last reference to it.

    Our own lexer is handed to graphql-core's Parser to reach the chain (an argument of its
    versioned internal API; graphql-core is pinned to its minor version)."""
    lexer = Lexer(Source(query))
    parser = Parser(lexer.source, max_tokens=max_tokens, lexer=lexer)
    try:
        try:
            return parser.parse_document()
        except RecursionError:
            pass
        # Raised outside the handler, so that it does not keep the recursion's frames.
        raise GraphQLSyntaxError(
            lexer.source, lexer.token.start, "Document is nested too deeply. Parsing aborted."
        )
    finally:
        _unlink(lexer.token)


def _unlink(token: Token) -> None:
    """Unlinks the chain of tokens `token` is in, both ways from it."""
    for step in ("prev", "next"):
        link: Token | None = getattr(token, step)
        while link is not None:
            following = getattr(link, step)
            link.prev = link.next = None
            link = following
    token.prev = token.next = None


class NoSchemaIntrospection(ValidationRule):
    """`__schema` is refused; `__type` and `__typename` still answer. (graphql-core's
    NoSchemaIntrospectionCustomRule refuses every field of an introspection type.)"""

    def enter_field(self, node: FieldNode, *_args: Any) -> None:
        if node.name.value == "__schema":
            self.report_error(
                GraphQLError("Introspection is turned off on this server: `__schema`.", node)
            )


class NoNulCharacters(ValidationRule):
    """Text may not hold U+0000: PostgreSQL cannot store it, so no backend takes it."""

    def enter_string_value(self, node: StringValueNode, *_args: Any) -> None:
        if "\x00" in node.value:
            self.report_error(GraphQLError(NUL_MESSAGE, node))


NUL_MESSAGE = "Text may not contain the NUL character (U+0000)."


# Input types nest a few levels; deeper variables serve no query and would cost a deep walk.
MAX_VARIABLE_NESTING = 32


def _check_variables(variables: dict[str, Any] | None, cost_extensions: dict[str, Any]) -> None:
    """Refuse variables nested past MAX_VARIABLE_NESTING or holding NUL. Walked with a
    stack, not recursion: a body of a few hundred brackets must not exhaust Python's."""
    pending: list[tuple[Any, int]] = [(variables, 0)]
    while pending:
        value, level = pending.pop()
        if isinstance(value, str):
            if "\x00" in value:
                raise RequestError(
                    "BAD_USER_INPUT",
                    [_error("BAD_USER_INPUT", NUL_MESSAGE)],
                    extensions=cost_extensions,
                )
            continue
        if isinstance(value, dict):
            items: list[Any] = [*value.keys(), *value.values()]
        elif isinstance(value, list):
            items = value
        else:
            continue
        if level >= MAX_VARIABLE_NESTING:
            exceeded = LimitExceeded(
                "variableNesting",
                level + 1,
                MAX_VARIABLE_NESTING,
                f"`variables` nest deeper than the limit of {MAX_VARIABLE_NESTING} levels.",
            )
            raise _too_complex(exceeded, **cost_extensions)
        pending.extend((item, level + 1) for item in items)


class DocumentRunner:
    def __init__(
        self, schema: GraphQLSchema, limits: Limits | None = None, *, introspection: bool = True
    ) -> None:
        self.schema = schema
        self.limits = limits or Limits()
        self.rules = [*specified_rules, NoNulCharacters]
        # Without introspection, "Did you mean …?" would give the field names away.
        self.hide_suggestions = not introspection
        if not introspection:
            self.rules.append(NoSchemaIntrospection)
        self._cache: OrderedDict[str, Prepared | RequestError] = OrderedDict()
        self._cached_characters = 0

    def prepare(self, query: str) -> Prepared:
        """Parse, measure and validate once per distinct small document; failures are
        cached too."""
        cached = self._cache.get(query)
        if cached is None:
            cached = self._prepare_uncached(query)
            if len(query) <= MAX_CACHED_CHARACTERS:
                self._remember(query, cached)
        else:
            self._cache.move_to_end(query)
        if isinstance(cached, RequestError):
            raise cached.again()
        return cached

    def _remember(self, query: str, prepared: Prepared | RequestError) -> None:
        self._cache[query] = prepared
        self._cached_characters += len(query)
        while len(self._cache) > CACHE_SIZE or self._cached_characters > CACHE_CHARACTERS:
            forgotten, _ = self._cache.popitem(last=False)
            self._cached_characters -= len(forgotten)

    @property
    def cached(self) -> tuple[int, int]:
        """How many documents the cache holds, and their characters."""
        return len(self._cache), self._cached_characters

    def _prepare_uncached(self, query: str) -> Prepared | RequestError:
        try:
            check_text(query, self.limits)
        except LimitExceeded as exceeded:
            return _too_complex(exceeded)
        try:
            document = parse_unlinked(query, self.limits.max_tokens)
        except GraphQLError as error:
            if error.message.startswith(_TOO_MANY_TOKENS):
                return _too_complex(_too_many_tokens(self.limits.max_tokens))
            return RequestError("GRAPHQL_PARSE_FAILED", [_located(error, "GRAPHQL_PARSE_FAILED")])
        try:
            check_shape(document, self.limits)
        except LimitExceeded as exceeded:
            return _too_complex(exceeded)
        errors = validate(
            self.schema,
            document,
            self.rules,
            max_errors=MAX_VALIDATION_ERRORS - 1,
            hide_suggestions=self.hide_suggestions,
        )
        if errors:
            return RequestError(
                "GRAPHQL_VALIDATION_FAILED",
                [_located(e, "GRAPHQL_VALIDATION_FAILED") for e in errors],
            )
        operations = {
            (d.name.value if d.name else None): Operation(d, cost_of(self.schema, document, d))
            for d in document.definitions
            if isinstance(d, OperationDefinitionNode)
        }
        fragments = {
            d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
        }
        return Prepared(document, operations, ExecutionContext.for_document(document), fragments)

    def cost(self, operation: Operation, variables: dict[str, Any] | None) -> int:
        """The cost of this request; refuses it, before any resolver runs, when over the limit."""
        constant = operation.cost.constant
        cost = constant if constant is not None else operation.cost.evaluate(variables)
        try:
            check_cost(cost, self.limits)
        except LimitExceeded as exceeded:
            raise _too_complex(exceeded, **self.cost_extensions(cost)) from None
        return cost

    def check_answer(self, answer: bytes, cost: int) -> bytes:
        """The answer's JSON, whole; raises RequestError, with no data, when it is larger
        than an answer may be (a part of it would not be a JSON document)."""
        try:
            check_response(len(answer), self.limits)
        except LimitExceeded as exceeded:
            raise _too_complex(exceeded, **self.cost_extensions(cost)) from None
        return answer

    def check_variables(self, variables: dict[str, Any] | None, cost: int) -> None:
        _check_variables(variables, self.cost_extensions(cost))

    def cost_extensions(self, cost: int) -> dict[str, Any]:
        return {"cost": {"requested": cost, "limit": self.limits.max_cost}}

    async def run(
        self,
        prepared: Prepared,
        operation: Operation,
        variables: dict[str, Any] | None,
        context: Context,
        cost: int,
    ) -> dict[str, Any]:
        """Execute and shape the answer; raises RequestError when variables do not fit."""
        self.check_variables(variables, cost)
        result = execute(
            self.schema,
            prepared.document,
            variable_values=variables,
            operation_name=operation.name,
            context_value=context,
            executor_class=prepared.execution_context,
            max_coercion_errors=20,
            hide_suggestions=self.hide_suggestions,
        )
        if isawaitable(result):
            result = await result
        assert isinstance(result, ExecutionResult)
        if result.data is None and result.errors and all(e.path is None for e in result.errors):
            raise RequestError(
                "BAD_USER_INPUT",
                [_located(e, "BAD_USER_INPUT") for e in result.errors],
                extensions=self.cost_extensions(cost),
            )
        for error in result.errors or ():
            if isinstance(error.original_error, DatabaseUnavailable) and not (
                operation.is_mutation and _any_answered(result.data)
            ):
                # The whole request answers 503, to be retried; not a mutation document
                # some of whose mutations were done (each its own transaction): those are
                # answered, the rest carry the error.
                raise error.original_error
        body: dict[str, Any] = {}
        if result.errors:
            body["errors"] = [self.shape(error, context.request_id) for error in result.errors]
        body["data"] = result.data
        body["extensions"] = self.cost_extensions(cost)
        return body

    def shape(self, error: GraphQLError, request_id: str) -> dict[str, Any]:
        code, extensions = code_of(error)
        if code == "INTERNAL_SERVER_ERROR":
            original = error.original_error
            logger.error(
                "unexpected error while executing",
                exc_info=(type(original), original, original.__traceback__) if original else None,
                extra={"fields": {"request_id": request_id, "path": error.path}},
            )
            shaped = _error(code, "Internal server error.", requestId=request_id)
        else:
            shaped = _error(code, error.message, **extensions)
        if error.locations:
            shaped["locations"] = [
                {"line": loc.line, "column": loc.column} for loc in error.locations
            ]
        if error.path is not None:
            shaped["path"] = error.path
        return shaped
