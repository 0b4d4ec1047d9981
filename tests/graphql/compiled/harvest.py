"""The read documents of the test suite, found statically, and variables for them.

Every string constant of a `.py` file under tests/ that parses as GraphQL, validates
against schema.graphql and holds only queries is a document of the suite. Its variables
are made from where each one is used (the field, the argument, the input field) and what
the data fixture holds: ids of the right kind (and now and then of another kind, or none),
ticket numbers, page sizes in and out of range, cursors of every covered connection.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from graphql import (
    ArgumentNode,
    DocumentNode,
    FieldNode,
    GraphQLEnumType,
    GraphQLError,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLSchema,
    ObjectFieldNode,
    OperationDefinitionNode,
    OperationType,
    TypeInfo,
    TypeInfoVisitor,
    VariableNode,
    Visitor,
    build_schema,
    parse,
    type_from_ast,
    validate,
    visit,
)

from tests.graphql.compiled.dataset import PRIORITIES, STATUS_PATHS, Dataset

ROOT = Path(__file__).resolve().parents[3]
TESTS = ROOT / "tests"
HERE = Path(__file__).resolve().parent


@cache
def schema() -> GraphQLSchema:
    return build_schema((ROOT / "schema.graphql").read_text())


@dataclass(frozen=True)
class SuiteDocument:
    query: str
    operation_name: str | None
    origin: str  # the file it was found in


def suite_documents() -> list[SuiteDocument]:
    """Each read operation of the suite once (this directory's own documents left out)."""
    found: dict[tuple[str, str | None], SuiteDocument] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if HERE in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            text = node.value.strip()
            if not text.startswith(("query", "{")):
                continue
            try:
                document = parse(text)
            except GraphQLError:
                continue
            if validate(schema(), document):
                continue
            operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
            if not operations or any(o.operation is not OperationType.QUERY for o in operations):
                continue
            for operation in operations:
                name = operation.name.value if operation.name and len(operations) > 1 else None
                origin = str(path.relative_to(ROOT))
                found.setdefault((text, name), SuiteDocument(text, name, origin))
    return list(found.values())


@dataclass(frozen=True)
class Usage:
    """Where a variable is used: the field, its argument, the input fields within it."""

    field: str
    argument: str
    within: tuple[str, ...]
    type_: GraphQLInputType


class _Usages(Visitor):
    def __init__(self, type_info: TypeInfo) -> None:
        super().__init__()
        self.type_info = type_info
        self.fields: list[str] = []
        self.argument = ""
        self.within: list[str] = []
        self.found: dict[str, Usage] = {}

    def enter_field(self, node: FieldNode, *_: Any) -> None:
        self.fields.append(node.name.value)

    def leave_field(self, *_: Any) -> None:
        self.fields.pop()

    def enter_argument(self, node: ArgumentNode, *_: Any) -> None:
        self.argument = node.name.value

    def enter_object_field(self, node: ObjectFieldNode, *_: Any) -> None:
        self.within.append(node.name.value)

    def leave_object_field(self, *_: Any) -> None:
        self.within.pop()

    def enter_variable(self, node: VariableNode, *_: Any) -> None:
        type_ = self.type_info.get_input_type()
        if type_ is not None and self.fields:
            self.found.setdefault(
                node.name.value, Usage(self.fields[-1], self.argument, tuple(self.within), type_)
            )


def usages(document: DocumentNode) -> dict[str, Usage]:
    type_info = TypeInfo(schema())
    collector = _Usages(type_info)
    visit(document, TypeInfoVisitor(type_info, collector))
    return collector.found


_ROOT_KINDS = {
    "issue": "Issue",
    "contact": "Contact",
    "account": "Account",
    "article": "Article",
}
_ID_KINDS = {
    "labelIds": ["Label"],
    "assigneeId": ["Member", "MachineUser"],
    "accountId": ["Account"],
    "machineUserId": ["MachineUser"],
}
INSTANTS = [
    "2000-01-01T00:00:00.000Z",
    "2020-02-29T12:34:56.789Z",
    "2999-12-31T23:59:59.999Z",
]


class Values:
    """Random values for variables, drawn from what the data fixture holds."""

    def __init__(self, data: Dataset, rng: random.Random) -> None:
        self.data = data
        self.rng = rng

    def junk_id(self) -> str:
        return self.rng.choice(["iss_00000000000000000000000000", "nope", "", "ct_x"])

    def id_for(self, usage: Usage, name: str) -> str:
        roll = self.rng.random()
        if roll < 0.05:
            return self.junk_id()
        if roll < 0.12:
            return self.rng.choice(self.data.all_ids())
        kinds = _ID_KINDS.get(name) or (
            [_ROOT_KINDS[usage.field]] if usage.field in _ROOT_KINDS else None
        )
        if kinds is None:
            return self.rng.choice(self.data.all_ids())
        return self.rng.choice([i for kind in kinds for i in self.data.ids_of(kind)])

    def scalar(self, usage: Usage, name: str, type_name: str) -> Any:
        rng = self.rng
        if type_name == "ID":
            return self.id_for(usage, name)
        if type_name == "Int":
            if name == "ticketNumber":
                return rng.choice([*self.data.ticket_numbers, 0, 99999])
            if name == "sinceSequence":
                return rng.randint(0, 50)
            return rng.choice([0, 1, 1, 2, 3, 5, 10, 25, 100, 101, -1])
        if type_name == "String":
            if name == "after":
                return rng.choice([*self.data.cursors, "not-a-cursor"])
            if name == "visibility":
                return rng.choice(["public", "internal", "public", "internal", "other"])
            if name in ("email", "requesterEmail"):
                return rng.choice([*self.data.emails, "nobody@nowhere.example"])
            if name == "domain":
                return rng.choice(["acme.example", "unicode.example", "none.example"])
            if name == "status" and usage.field in ("article", "articles"):
                return rng.choice(["draft", "published"])
            if name == "status":
                return rng.choice(list(STATUS_PATHS))
            if name == "priority":
                return rng.choice(PRIORITIES)
            return rng.choice(self.data.words)
        if type_name == "DateTime":
            return rng.choice(INSTANTS)
        if type_name == "Boolean":
            return rng.random() < 0.5
        raise LookupError(type_name)

    def value(self, usage: Usage, name: str, type_: GraphQLInputType, nullable_ok: bool) -> Any:
        if isinstance(type_, GraphQLNonNull):
            return self.value(usage, name, type_.of_type, False)
        if nullable_ok and self.rng.random() < 0.1:
            return None
        if isinstance(type_, GraphQLList):
            return [
                self.value(usage, name, type_.of_type, True) for _ in range(self.rng.randint(1, 3))
            ]
        if isinstance(type_, GraphQLEnumType):
            return self.rng.choice(list(type_.values))
        if isinstance(type_, GraphQLInputObjectType):
            chosen = [f for f in type_.fields if self.rng.random() < 0.3]
            return {
                field: self.value(usage, field, type_.fields[field].type, True) for field in chosen
            }
        return self.scalar(usage, name, type_.name)

    def variables(self, document: DocumentNode, operation_name: str | None) -> dict[str, Any]:
        """Values for the operation's variables, of their declared types, each meant for
        where it is used; an optional one now and then left out."""
        found = usages(document)
        made: dict[str, Any] = {}
        for operation in document.definitions:
            if not isinstance(operation, OperationDefinitionNode):
                continue
            if operation_name is not None and (
                operation.name is None or operation.name.value != operation_name
            ):
                continue
            for definition in operation.variable_definitions or ():
                name = definition.variable.name.value
                declared = type_from_ast(schema(), definition.type)
                if name not in found or declared is None:
                    continue
                if not isinstance(declared, GraphQLNonNull) and self.rng.random() < 0.15:
                    continue
                usage = found[name]
                key = usage.within[-1] if usage.within else usage.argument
                made[name] = self.value(usage, key, declared, True)  # type: ignore[arg-type]
        return made
