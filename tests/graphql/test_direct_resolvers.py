"""Resolvers with scalar arguments and no field extensions are called directly; they answer
as Strawberry's own wrapper does, and every other resolver keeps that wrapper."""

from __future__ import annotations

import asyncio
from enum import Enum
from typing import Any

import strawberry
from graphql import ExecutionResult, execute, parse
from strawberry import relay
from strawberry.extensions import FieldExtension

from supportdesk.graphql.resolution import How, resolution_of, resolve_fields
from supportdesk.graphql.schema import build_schema


class Shout(FieldExtension):
    def resolve(self, next_: Any, source: Any, info: strawberry.Info, **kwargs: Any) -> Any:
        return str(next_(source, info, **kwargs)).upper()


@strawberry.enum
class Tone(Enum):
    CALM = "calm"


@strawberry.input
class Words:
    text: str


@strawberry.type
class Pet:
    name: str

    @strawberry.field
    def greeting(self, info: strawberry.Info, first_word: str = "Hello", times: int = 1) -> str:
        return " ".join([f"{first_word} {self.name} ({info.field_name})"] * times)

    @strawberry.field
    async def later(self, root: Pet, maybe_id: strawberry.ID | None = None) -> str:
        await asyncio.sleep(0)
        return f"{root.name} {maybe_id}"

    @strawberry.field
    def parented(self, parent: strawberry.Parent[Pet]) -> str:
        return parent.name

    @strawberry.field
    def toned(self, tone: Tone) -> str:
        return tone.value

    @strawberry.field
    def worded(self, words: Words) -> str:
        return words.text

    @strawberry.field(extensions=[Shout()])
    def shouted(self) -> str:
        return self.name


@strawberry.type
class Query:
    @strawberry.field
    def pet(self, pet_name: str = "Rex") -> Pet:
        return Pet(name=pet_name)

    @strawberry.field
    def gid(self, id: relay.GlobalID) -> str:  # Strawberry converts it
        return f"{type(id).__name__} {id.node_id}"

    @strawberry.field
    def maybe(self, name: strawberry.Maybe[str] = None) -> str:  # Strawberry wraps it
        return repr(name)


QUERY = """query($id: ID) {
  gid(id: "UGV0OjE=") maybe(name: "x")
  pet(petName: "Fido") {
    greeting(firstWord: "Hi", times: 2) plain: greeting
    later(maybeId: $id) parented toned(tone: CALM) worded(words: {text: "w"}) shouted
  }
}"""


def answer(schema: strawberry.Schema, variables: dict[str, Any]) -> ExecutionResult:
    async def run() -> ExecutionResult:
        result = execute(schema._schema, parse(QUERY), variable_values=variables)
        return await result if asyncio.iscoroutine(result) else result  # type: ignore[return-value]

    return asyncio.run(run())


def test_direct_calls_answer_as_strawberry_does() -> None:
    wrapped = strawberry.Schema(query=Query)
    direct = strawberry.Schema(query=Query)

    table = resolve_fields(direct, {})
    changed = sum(resolution.how is How.DIRECT for resolution in table.values())

    for variables in ({"id": "p1"}, {"id": None}, {}):
        expected = answer(wrapped, variables)
        assert expected.errors is None
        assert answer(direct, variables) == expected
    assert changed == 4  # pet, greeting, later, parented
    assert answer(direct, {"id": "p1"}).data == {
        "gid": "GlobalID 1",
        "maybe": "Some('x')",
        "pet": {
            "greeting": "Hi Fido (greeting) Hi Fido (greeting)",
            "plain": "Hello Fido (greeting)",
            "later": "Fido p1",
            "parented": "Fido",
            "toned": "calm",
            "worded": "w",
            "shouted": "FIDO",
        },
    }


def test_fields_that_convert_arguments_keep_strawberrys_wrapper() -> None:
    schema = build_schema()._schema

    def direct(coordinate: str) -> bool:
        type_name, field_name = coordinate.split(".")
        field = schema.type_map[type_name].fields[field_name]  # type: ignore[union-attr]
        resolution = resolution_of(field)
        return resolution is not None and resolution.how is How.DIRECT

    assert direct("Query.issue") and direct("Issue.messages") and direct("Query.node")
    assert not direct("Query.issues")  # a filter input and an order enum
    assert not direct("Mutation.createIssue")  # an input
