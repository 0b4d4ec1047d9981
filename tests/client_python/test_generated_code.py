"""The generated package is what `make client` writes, and covers the whole API."""

from __future__ import annotations

import filecmp
import subprocess
from pathlib import Path

import pytest
from graphql import OperationDefinitionNode, OperationType, build_schema, parse

from tests.servers import IN_CI

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python"
GENERATED = CLIENT / "supportdesk_client" / "generated"
CODEGEN_PYTHON = ROOT / ".venv-codegen" / "bin" / "python"


def _differences(left: Path, right: Path) -> list[str]:
    compared = filecmp.dircmp(left, right, ignore=["__pycache__"])
    found = [f"only in {left.name}/: {name}" for name in compared.left_only]
    found += [f"only in the regenerated package: {name}" for name in compared.right_only]
    found += [f"differs: {name}" for name in compared.diff_files + compared.funny_files]
    for name, below in compared.subdirs.items():
        found += _differences(left / name, Path(below.right))
    return found


def test_the_committed_client_is_what_make_client_generates(tmp_path: Path) -> None:
    if not CODEGEN_PYTHON.exists():
        message = "the generator's venv is missing: run `make install`"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    fresh = tmp_path / "generated"

    subprocess.run(
        [str(CODEGEN_PYTHON), str(CLIENT / "codegen" / "generate.py"), "--into", str(fresh)],
        check=True,
        timeout=300,
    )

    differences = _differences(GENERATED, fresh)
    assert not differences, (
        "clients/python is stale: regenerate it with `make client` and commit it\n"
        + "\n".join(differences)
    )


def _root_fields(operation: OperationDefinitionNode) -> set[str]:
    return {selection.name.value for selection in operation.selection_set.selections}  # type: ignore[attr-defined]


def test_every_root_field_has_an_operation() -> None:
    schema = build_schema((ROOT / "schema.graphql").read_text())
    used: dict[OperationType, set[str]] = {
        OperationType.QUERY: set(),
        OperationType.MUTATION: set(),
    }
    for file in sorted((CLIENT / "operations").glob("*.graphql")):
        for definition in parse(file.read_text()).definitions:
            if isinstance(definition, OperationDefinitionNode):
                used[definition.operation] |= _root_fields(definition)

    assert schema.query_type is not None and schema.mutation_type is not None
    assert set(schema.query_type.fields) == used[OperationType.QUERY]
    assert set(schema.mutation_type.fields) == used[OperationType.MUTATION]
