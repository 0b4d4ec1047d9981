"""One IMAP session (imap-tools over the standard library's imaplib): log in, examine a
folder read-only, list what came after a UID, fetch a message's raw bytes.

Blocking calls, each bounded by the connection's time-out: the poller runs them in a
thread. The folder is EXAMINEd and bodies fetched with BODY.PEEK, so nothing on the server
changes (no \\Seen flag): the checkpoint is the only record of what was taken."""

from __future__ import annotations

import imaplib
import re
import ssl
from dataclasses import dataclass

from imap_tools import BaseMailBox, MailBox, MailBoxStartTls

from supportdesk.imap.source import ImapSource

_UID = re.compile(rb"UID (\d+)")
_SIZE = re.compile(rb"RFC822\.SIZE (\d+)")


@dataclass(frozen=True, slots=True)
class Waiting:
    """A message in the folder after the checkpoint."""

    uid: int
    size: int


class ImapSession:
    def __init__(self, source: ImapSource, context: ssl.SSLContext, timeout: float) -> None:
        box: BaseMailBox
        if source.implicit_tls:
            box = MailBox(source.host, source.port, timeout=timeout, ssl_context=context)
        else:
            box = MailBoxStartTls(source.host, source.port, timeout=timeout, ssl_context=context)
        try:
            box.login(source.user, source.password, initial_folder=None)
            box.folder.set(source.folder, readonly=True)
        except BaseException:
            box.client.shutdown()
            raise
        self._box = box
        self.uid_validity = self._uid_validity(source.folder)

    def _uid_validity(self, folder: str) -> int:
        # The SELECT/EXAMINE answer carries it ([UIDVALIDITY n]); STATUS when it did not.
        _, found = self._box.client.response("UIDVALIDITY")
        if found and found[0] is not None:
            return int(found[-1])
        return int(self._box.folder.status(folder, ["UIDVALIDITY"])["UIDVALIDITY"])

    def waiting_after(self, last_uid: int) -> list[Waiting]:
        """The messages whose UID is above `last_uid`, in UID order."""
        # `n:*` names the highest UID even when it is below n: filtered below.
        status, lines = self._box.client.uid("FETCH", f"{last_uid + 1}:*", "(UID RFC822.SIZE)")
        if status != "OK":
            raise imaplib.IMAP4.error(f"FETCH answered {status}")
        found: dict[int, int] = {}
        for line in lines:
            text = line[0] if isinstance(line, tuple) else line
            if not isinstance(text, bytes):
                continue
            uid, size = _UID.search(text), _SIZE.search(text)
            if uid is not None and int(uid[1]) > last_uid:
                found[int(uid[1])] = int(size[1]) if size is not None else 0
        return [Waiting(uid, found[uid]) for uid in sorted(found)]

    def raw(self, uid: int) -> bytes | None:
        """The message's bytes as the server keeps them; None when it is gone meanwhile."""
        status, lines = self._box.client.uid("FETCH", str(uid), "(BODY.PEEK[])")
        if status != "OK":
            raise imaplib.IMAP4.error(f"FETCH answered {status}")
        for line in lines:
            if isinstance(line, tuple) and len(line) == 2 and isinstance(line[1], bytes):
                return line[1]
        return None

    def close(self) -> None:
        try:
            self._box.logout()
        except Exception:  # a server gone at the end loses nothing
            self._box.client.shutdown()
