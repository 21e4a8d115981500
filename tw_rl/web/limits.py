"""How much work the server takes on: its limits, stated on the page, and the queue of searches.

A search (the bot's move, a hint) or an analysis (a checkpoint's forward pass) runs only when one
of ``Limits.searches`` slots is free; up to ``Limits.queue`` more wait for one (at most
``Limits.wait_seconds``), and past that a request is refused at once with ``Busy`` (429, one line).
The queue is counted with a condition variable, so it works from any worker thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    searches: int = 2  # searches and analyses running at once
    queue: int = 32  # more of them waiting for a slot; past that: 429
    wait_seconds: float = 120.0  # the longest a request waits in the queue
    games_per_client: int = 10  # games kept per client (its oldest dropped past that)
    games: int = 200  # games kept in all
    body_bytes: int = 200_000  # the largest request body
    bot_seconds: tuple[float, float] = (0.1, 300.0)  # bot@S: S seconds for the whole game
    move_seconds: float = 10.0  # the most the bot thinks on one move
    simulations: int = 1000  # ckpt:NAME@N: at most N simulations a move
    hint_seconds: float = 1.0  # a hint's search

    def __post_init__(self) -> None:
        for name in ("searches", "games_per_client", "games", "body_bytes", "simulations"):
            if getattr(self, name) < 1:
                raise ValueError(f"the limit {name} must be at least 1, not {getattr(self, name)}")
        if self.queue < 0:
            raise ValueError(f"the queue length must be 0 or more, not {self.queue}")
        low, high = self.bot_seconds
        if not 0 < low <= high:
            raise ValueError(f"the bot's game clock range {low}..{high} is empty")

    def as_json(self) -> dict:
        return asdict(self)


class Busy(RuntimeError):
    """Every search slot is taken and the queue is full (or the wait ran out): 429."""


class WorkQueue:
    """At most ``running`` calls at once; up to ``waiting`` more wait for a slot."""

    def __init__(self, running: int, waiting: int, wait_seconds: float) -> None:
        self.running_limit = running
        self.waiting_limit = waiting
        self.wait_seconds = wait_seconds
        self.running = 0
        self.waiting = 0
        self._changed = threading.Condition()

    def run(self, work: Callable[..., T], *args) -> T:
        """``work(*args)`` in a free slot, waiting for one if the queue has room (else ``Busy``)."""
        with self._changed:
            if self.running >= self.running_limit:
                if self.waiting >= self.waiting_limit:
                    raise Busy(
                        f"the server is busy: {self.running} searches running and {self.waiting} "
                        "waiting (its limit); try again in a moment"
                    )
                self.waiting += 1
                try:
                    free = self._changed.wait_for(
                        lambda: self.running < self.running_limit, timeout=self.wait_seconds
                    )
                finally:
                    self.waiting -= 1
                if not free:
                    raise Busy(f"the server is busy: no search slot came free in {self.wait_seconds:g} s")
            self.running += 1
        try:
            return work(*args)
        finally:
            with self._changed:
                self.running -= 1
                self._changed.notify()
