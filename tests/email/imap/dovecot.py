"""A real Dovecot (Debian's dovecot-imapd) for the IMAP door's tests: started as root's
child from a config of the tests' own, in a temporary folder, with IMAPS and IMAP+STARTTLS
on free ports of 127.0.0.1 and a self-signed certificate the poller is told to trust
(SUPPORTDESK_IMAP_CA_FILE), as shared/PEERS.md describes. Its Debian service is never used."""

from __future__ import annotations

import imaplib
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

DOVECOT = "/usr/sbin/dovecot"
PACKAGE = "dovecot-imapd"
START_SECONDS = 15.0
# Users are written before Dovecot starts (it does not always see a passwd-file that grows
# under it) and handed out one per test.
USERS = 64


def ensure_installed() -> str | None:
    """None when Dovecot is here (installed now if missing and we may); else why not."""
    if Path(DOVECOT).exists():
        return None
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return f"{PACKAGE} is missing (run `make test-tools` as root)"
    install = ["apt-get", "install", "-y", "-qq", PACKAGE]
    if subprocess.run(install, check=False, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], check=False, capture_output=True)
        subprocess.run(install, check=False, capture_output=True)
    return None if Path(DOVECOT).exists() else f"could not install {PACKAGE}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _certificate(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


CONFIG = """\
protocols = imap
listen = 127.0.0.1
base_dir = {folder}/run
state_dir = {folder}/state
log_path = {folder}/dovecot.log
info_log_path = {folder}/dovecot.log
default_login_user = dovenull
default_internal_user = dovecot
first_valid_uid = 1
ssl = yes
ssl_cert = <{cert}
ssl_key = <{key}
auth_mechanisms = plain login
# A refused login answers at once, and later logins from the same address are not held
# back for it (Dovecot's penalty applies to the address, the tests' other users included).
auth_failure_delay = 0
service anvil {{
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {folder}/passwd
}}
userdb {{
  driver = static
  args = uid=dovecot gid=dovecot home={folder}/mail/%u
}}
mail_location = maildir:~/Maildir
service imap-login {{
  inet_listener imap {{
    port = {imap_port}
  }}
  inet_listener imaps {{
    port = {imaps_port}
    ssl = yes
  }}
}}
"""


@dataclass
class Dovecot:
    folder: Path
    cert: Path
    imap_port: int
    imaps_port: int
    users: list[tuple[str, str]]

    @classmethod
    def start(cls, folder: Path) -> Dovecot:
        cert, key = _certificate(folder)
        users = [(f"desk{n:02}", f"s3cret@{secrets.token_hex(6)}") for n in range(USERS)]
        (folder / "passwd").write_text("".join(f"{u}:{{PLAIN}}{p}\n" for u, p in users))
        mail = folder / "mail"
        mail.mkdir()
        shutil.chown(mail, "dovecot", "dovecot")
        running = cls(folder, cert, _free_port(), _free_port(), users)
        config = folder / "dovecot.conf"
        config.write_text(
            CONFIG.format(
                folder=folder,
                cert=cert,
                key=key,
                imap_port=running.imap_port,
                imaps_port=running.imaps_port,
            )
        )
        # Dovecot forks into the background: its children must not hold a pipe of ours.
        with (folder / "start.log").open("wb") as said:
            subprocess.run(
                [DOVECOT, "-c", str(config)],
                check=True,
                stdin=subprocess.DEVNULL,
                stdout=said,
                stderr=subprocess.STDOUT,
            )
        running._wait_listening()
        return running

    def _wait_listening(self) -> None:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.imaps_port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Dovecot did not start: {self.log()}") from None
                time.sleep(0.05)

    def log(self) -> str:
        said = [self.folder / "start.log", self.folder / "dovecot.log"]
        return "".join(path.read_text() for path in said if path.exists())

    def stop(self) -> None:
        pid_file = self.folder / "run" / "master.pid"
        if not pid_file.exists():
            return
        pid = int(pid_file.read_text().split()[0])
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + START_SECONDS
        while pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)  # it removes its pid file last

    def new_user(self) -> tuple[str, str]:
        """A user no test had, and its password."""
        return self.users.pop()

    def client(self, user: str, password: str) -> imaplib.IMAP4_SSL:
        """A logged-in client of the test's own (Python's imaplib), trusting the certificate."""
        context = ssl.create_default_context(cafile=str(self.cert))
        client = imaplib.IMAP4_SSL("127.0.0.1", self.imaps_port, ssl_context=context)
        client.login(user, password)
        return client
