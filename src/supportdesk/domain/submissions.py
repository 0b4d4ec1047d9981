"""One-time form tokens: a form that makes something (a key) is accepted once.

A browser's refresh or back-and-forward re-sends a POST; the token it carries has been
used, so nothing is made twice without the person asking again.
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, insert
from sqlalchemy.exc import IntegrityError

from supportdesk.db import Database
from supportdesk.db.tables import form_submissions
from supportdesk.domain.clock import now

# Used tokens are remembered this long; a form older than that is refused as stale.
TOKEN_LIFETIME = timedelta(days=1)
# The moment the form was made (hex milliseconds), then a random part.
_TOKEN_SHAPE = re.compile(r"\A([0-9a-f]{11})[A-Za-z0-9_-]{24}\Z")


def new_submission_token() -> str:
    """A token for a form about to be shown."""
    return f"{int(now().timestamp() * 1000):011x}{secrets.token_urlsafe(18)}"


async def claim_submission(db: Database, workspace_id: str, token: str | None) -> bool:
    """True the first time a well-formed, fresh token is claimed in a workspace; False
    for a used, stale or made-up one."""
    match = _TOKEN_SHAPE.match(token or "")
    moment = now()
    if match is None:
        return False
    made_at = datetime.fromtimestamp(int(match.group(1), 16) / 1000, UTC)
    if not moment - TOKEN_LIFETIME < made_at <= moment + timedelta(minutes=5):
        return False
    try:
        async with db.transaction() as connection:
            await connection.execute(
                delete(form_submissions).where(
                    form_submissions.c.workspace_id == workspace_id,
                    form_submissions.c.created_at < moment - TOKEN_LIFETIME,
                )
            )
            await connection.execute(
                insert(form_submissions).values(
                    workspace_id=workspace_id, id=token, created_at=moment
                )
            )
    except IntegrityError:
        return False
    return True
