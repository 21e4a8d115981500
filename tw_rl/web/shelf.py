"""What a server keeps in memory by id (games, opened studies): the newest ``limit`` of them."""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

T = TypeVar("T")


class Shelf(Generic[T]):
    """Items by id, thread-safe; past ``limit`` items the oldest is dropped."""

    def __init__(self, limit: int, missing: type[Exception], what: str) -> None:
        self.limit = limit
        self.missing = missing  # raised (with a one-line message) for an unknown id
        self.what = what  # e.g. "game", for that message
        self._items: dict[str, T] = {}
        self._lock = threading.Lock()

    def add(self, item_id: str, item: T) -> T:
        with self._lock:
            self._items[item_id] = item
            while len(self._items) > self.limit:
                self._items.pop(next(iter(self._items)))
        return item

    def remove(self, item_id: str) -> None:
        with self._lock:
            self._items.pop(item_id, None)

    def __contains__(self, item_id: str) -> bool:
        with self._lock:
            return item_id in self._items

    def get(self, item_id: str) -> T:
        with self._lock:
            item = self._items.get(item_id)
        if item is None:
            shown = item_id if len(item_id) <= 40 else item_id[:37] + "..."
            raise self.missing(
                f"no {self.what} {shown!r} on this server (it may have been dropped or restarted)"
            )
        return item
