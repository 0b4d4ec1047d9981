"""The path of a request as logs, traces and metrics may record it: an invitation link's
path is its secret (web/pages/invitations.py), so that part is left out."""

from __future__ import annotations

from starlette.types import Scope

_SECRET_PATHS = ("/invitations/",)


def logged_path(scope: Scope) -> str:
    path: str = scope["path"]
    for prefix in _SECRET_PATHS:
        if path.startswith(prefix):
            return prefix + "…"
    return path
