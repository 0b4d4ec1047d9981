"""What is built once per key and kept: statements, by the shape of what they read."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """What was built once per key, at most `limit` of them; the least recently used
    goes first."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._kept: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K, make: Callable[[], V]) -> V:
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
            return found
        made = self._kept[key] = make()
        if len(self._kept) > self._limit:
            self._kept.popitem(last=False)
        return made
