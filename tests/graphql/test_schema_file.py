"""The committed schema.graphql is the schema the service serves."""

from __future__ import annotations

from pathlib import Path

from supportdesk.graphql.schema import build_schema

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "schema.graphql"


def test_the_committed_sdl_matches_the_schema() -> None:
    current = build_schema().as_str() + "\n"
    committed = SCHEMA_FILE.read_text(encoding="utf-8") if SCHEMA_FILE.exists() else ""

    assert committed == current, (
        "schema.graphql is stale: regenerate it with `make schema` and commit it"
    )
