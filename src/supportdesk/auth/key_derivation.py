"""Keys for one purpose each, derived from the deployment's secret."""

from __future__ import annotations

import hashlib
import hmac


def derive(secret: str, purpose: str) -> bytes:
    """A key for one purpose: knowing it tells nothing of the secret or other keys."""
    return hmac.digest(secret.encode(), purpose.encode(), hashlib.sha256)
