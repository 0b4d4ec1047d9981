"""The session of a person logged in to the pages: a signed cookie, never a secret.

It holds who logged in (admin and workspace ids), the workspaces they may switch between,
the CSRF token of their forms and a one-shot notice. Signed with the deployment's session
key; HttpOnly, SameSite=Lax, Secure over HTTPS; the inbox, the settings and the live stream
of the inbox all read it.

A login also carries the id of its server-side session (domain.org_admins.sessions): the
signature proves the cookie was ours, the session row that it was not ended since.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.requests import Request
from starlette.responses import Response

from supportdesk.auth.server_key import ServerKey

COOKIE_NAME = "supportdesk_session"
COOKIE_PATH = "/"


@dataclass
class Session:
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    # The server-side session of a login (None before one).
    id: str | None = None
    workspace_id: str | None = None
    admin_id: str | None = None
    logged_in_at: float | None = None
    # (workspace id, admin id) pairs whose password was checked at login.
    choices: list[tuple[str, str]] = field(default_factory=list)
    notice: str | None = None
    changed: bool = True

    @property
    def logged_in(self) -> bool:
        return self.id is not None and self.admin_id is not None and self.workspace_id is not None

    @classmethod
    def started(cls, session_id: str, choices: list[tuple[str, str]]) -> Session:
        """A fresh session for a person who just proved their password: a new CSRF token,
        nothing carried over from before the login (no session fixation)."""
        session = cls(id=session_id, choices=choices, logged_in_at=time.time())
        if len(choices) == 1:
            session.choose(*choices[0])
        return session

    @property
    def workspace_ids(self) -> list[str]:
        """The workspaces this login covers."""
        return [workspace_id for workspace_id, _ in self.choices]

    def choose(self, workspace_id: str, admin_id: str) -> None:
        self.workspace_id, self.admin_id = workspace_id, admin_id
        self.changed = True

    def tell(self, notice: str) -> None:
        self.notice, self.changed = notice, True

    def take_notice(self) -> str | None:
        notice, self.notice = self.notice, None
        if notice:
            self.changed = True
        return notice

    def dump(self) -> dict[str, Any]:
        return {
            "c": self.csrf,
            "s": self.id,
            "w": self.workspace_id,
            "a": self.admin_id,
            "t": self.logged_in_at,
            "ch": [list(choice) for choice in self.choices],
            "n": self.notice,
        }

    @classmethod
    def load(cls, data: dict[str, Any]) -> Session:
        return cls(
            csrf=str(data["c"]),
            id=data.get("s"),
            workspace_id=data.get("w"),
            admin_id=data.get("a"),
            logged_in_at=data.get("t"),
            choices=[(str(w), str(a)) for w, a in data.get("ch") or []],
            notice=data.get("n"),
            changed=False,
        )


class SessionCookies:
    """Reads and writes sessions; the signing key is resolved once, on first use."""

    def __init__(self, server_key: ServerKey, lifetime_seconds: int) -> None:
        self._server_key = server_key
        self.lifetime = lifetime_seconds
        self._serializer: URLSafeTimedSerializer | None = None

    async def serializer(self) -> URLSafeTimedSerializer:
        if self._serializer is None:
            key = await self._server_key.secret()
            self._serializer = URLSafeTimedSerializer(key, salt="supportdesk.session")
        return self._serializer

    async def read(self, request: Request) -> Session:
        """The request's session, or a new empty one when it has none that is valid."""
        cookie = request.cookies.get(COOKIE_NAME)
        if not cookie:
            return Session()
        try:
            data = (await self.serializer()).loads(cookie, max_age=self.lifetime)
            session = Session.load(data)
        except (BadSignature, KeyError, TypeError, ValueError):
            return Session()
        if session.logged_in_at is not None and time.time() - session.logged_in_at > self.lifetime:
            return Session()  # a login lasts `lifetime` however busy the session is
        return session

    async def write(self, request: Request, response: Response, session: Session) -> None:
        if not session.changed:
            return
        response.set_cookie(
            COOKIE_NAME,
            (await self.serializer()).dumps(session.dump()),
            path=COOKIE_PATH,
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )
