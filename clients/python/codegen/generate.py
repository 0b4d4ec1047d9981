"""Generates supportdesk_client/generated/ from ../../schema.graphql and operations/.

Runs in the generator's own environment (`make client` makes it): ariadne-codegen needs
graphql-core 3.2, the service 3.3. ariadne-codegen writes one client per run, async or
sync; both runs write into the same package, so the two clients share one set of models
(the model modules of the second run are byte for byte those of the first) and the
package's __init__ is the second run's.

    python codegen/generate.py [--into DIRECTORY]   # default: supportdesk_client/generated
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CLIENT_ROOT = Path(__file__).resolve().parents[1]
SCHEMA = CLIENT_ROOT.parents[1] / "schema.graphql"
OPERATIONS = CLIENT_ROOT / "operations"
DEFAULT_TARGET = CLIENT_ROOT / "supportdesk_client" / "generated"
BASE_CLIENTS = Path(__file__).resolve().parent / "base_clients"

SHARED_SETTINGS = {
    "include_comments": "none",
    "convert_to_snake_case": True,
    # Snake-case names in every model's __init__, as type checkers see them (an explicit
    # Field(alias=...) would make them take the camel-case name).
    "use_alias_generator": True,
    "include_all_inputs": True,
    "include_all_enums": True,
    "multipart_uploads": False,
    "plugins": ["ariadne_codegen.contrib.shorter_results.ShorterResultsPlugin"],
}
# One run per client: (module, class, async or not, base class). The base classes are
# ours (base_clients/, copied into the package): they retry and raise our exceptions.
CLIENTS = [
    ("sync_client", "SyncGraphQLClient", False, "SyncBaseClient"),
    ("async_client", "AsyncGraphQLClient", True, "AsyncBaseClient"),
]
SCALARS = {"DateTime": "datetime.datetime"}


def config_text(
    target: Path, file_name: str, class_name: str, is_async: bool, base_class: str
) -> str:
    """An ariadne-codegen configuration; JSON strings and booleans are valid TOML."""
    settings = {
        "schema_path": str(SCHEMA),
        "queries_path": str(OPERATIONS),
        "target_package_path": str(target.parent),
        "target_package_name": target.name,
        "client_file_name": file_name,
        "client_name": class_name,
        "async_client": is_async,
        "base_client_name": base_class,
        "base_client_file_path": str(
            BASE_CLIENTS / f"{file_name.replace('client', 'base_client')}.py"
        ),
        **SHARED_SETTINGS,
    }
    lines = ["[tool.ariadne-codegen]"]
    lines += [f"{name} = {json.dumps(value)}" for name, value in settings.items()]
    for scalar, python_type in SCALARS.items():
        lines += [f"[tool.ariadne-codegen.scalars.{scalar}]", f"type = {json.dumps(python_type)}"]
    return "\n".join(lines) + "\n"


def generate(target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    codegen = Path(sys.executable).parent / "ariadne-codegen"
    with tempfile.TemporaryDirectory(prefix="supportdesk-codegen-") as folder:
        for file_name, class_name, is_async, base_class in CLIENTS:
            config = Path(folder) / f"{file_name}.toml"
            config.write_text(config_text(target, file_name, class_name, is_async, base_class))
            subprocess.run(
                [str(codegen), "--config", str(config)],
                check=True,
                cwd=folder,
                stdout=subprocess.DEVNULL,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--into", type=Path, default=DEFAULT_TARGET)
    generate(parser.parse_args().into.resolve())


if __name__ == "__main__":
    main()
