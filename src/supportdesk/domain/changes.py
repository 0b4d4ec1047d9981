"""Telling "leave this field alone" from "clear it" in partial updates."""

from __future__ import annotations

from enum import Enum
from typing import Final


class Keep(Enum):
    """The value of an update argument that was not given at all (as opposed to None)."""

    KEEP = "keep"


KEEP: Final = Keep.KEEP
