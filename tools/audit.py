"""Run graphql-http's GraphQL-over-HTTP audit against supportdesk (`make audit`).

Without --url it starts `supportdesk serve` on a fresh SQLite database in a temporary folder,
with a Full-access key made by `supportdesk init`, and stops it afterwards. With --url it
audits a server that is already running (the key from SUPPORTDESK_AUDIT_KEY).

Passes when no MUST audit fails and at most 3 SHOULD audits warn (tools/audit.mjs decides).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent


def install_node_tools() -> None:
    """tools/node_modules from the lock file; never committed."""
    if (TOOLS / "node_modules" / "graphql-http" / "package.json").exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is needed for the audit (node 20 and npm)")
    command = "ci" if (TOOLS / "package-lock.json").exists() else "install"
    subprocess.run(
        [npm, command, "--no-audit", "--no-fund", "--loglevel=error"], cwd=TOOLS, check=True
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_up(base_url: str, server: subprocess.Popen[bytes], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"supportdesk serve exited with {server.returncode}")
        try:
            with urllib.request.urlopen(f"{base_url}/healthz", timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    sys.exit("supportdesk serve did not come up")


@contextmanager
def fresh_server() -> Iterator[tuple[str, str]]:
    """A server on a new SQLite database: (its /graphql URL, a Full-access key)."""
    with tempfile.TemporaryDirectory(prefix="supportdesk-audit-") as folder:
        env = {
            **os.environ,
            "SUPPORTDESK_DATABASE_URL": f"sqlite:///{folder}/audit.db",
            "SUPPORTDESK_REDIS_URL": "",
        }
        init = subprocess.run(
            [BIN / "supportdesk", "init", "--workspace", "Audit", "--admin-email",
             "audit@example.com", "--admin-password", "audit password", "--json"],
            env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
        key = json.loads(init.stdout)["api_key"]
        port = free_port()
        server = subprocess.Popen(
            [BIN / "supportdesk", "serve", "--port", str(port), "--workers", "1"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(Path(folder) / "server.log", "wb"),  # noqa: SIM115
        )
        try:
            base_url = f"http://127.0.0.1:{port}"
            wait_until_up(base_url, server)
            yield f"{base_url}/graphql", key
        finally:
            server.terminate()
            server.wait(timeout=15)


def audit(url: str, key: str) -> int:
    node = shutil.which("node")
    if node is None:
        sys.exit("node is needed for the audit")
    env = {**os.environ, "SUPPORTDESK_AUDIT_KEY": key}
    return subprocess.run([node, TOOLS / "audit.mjs", url], env=env, check=False).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="audit this running server's /graphql instead")
    arguments = parser.parse_args()
    install_node_tools()
    if arguments.url:
        key = os.environ.get("SUPPORTDESK_AUDIT_KEY")
        if not key:
            sys.exit("set SUPPORTDESK_AUDIT_KEY to a key of that server")
        return audit(arguments.url, key)
    with fresh_server() as (url, key):
        return audit(url, key)


if __name__ == "__main__":
    sys.exit(main())
