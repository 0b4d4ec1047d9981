"""CSRF: every form carries the session's token; a POST without it is refused.

The token is bound to the session cookie (SameSite=Lax, HttpOnly) and compared in
constant time. The login form has one too, so nobody can log a browser in as someone else.
"""

from __future__ import annotations

import hmac

from starlette.datastructures import FormData

from supportdesk.web.session import Session

FIELD = "csrf_token"


def is_valid(session: Session, form: FormData) -> bool:
    sent = form.get(FIELD)
    return isinstance(sent, str) and bool(sent) and hmac.compare_digest(sent, session.csrf)
