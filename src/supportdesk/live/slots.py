"""At most so many open streams per key in this process; the next is refused (429)."""

from __future__ import annotations


class StreamSlots:
    def __init__(self, per_key: int) -> None:
        self.per_key = per_key
        self._open: dict[str, int] = {}

    def take(self, key_id: str) -> bool:
        """One stream more for the key, unless it has all it may."""
        count = self._open.get(key_id, 0)
        if count >= self.per_key:
            return False
        self._open[key_id] = count + 1
        return True

    def give_back(self, key_id: str) -> None:
        count = self._open.pop(key_id, 0) - 1
        if count > 0:
            self._open[key_id] = count
