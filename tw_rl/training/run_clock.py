"""A training process's clock: ``max_minutes`` as a deadline, and the learner's grace past it.

Self-play asks ``out_of_time`` after every move batch (no new game starts past it), the loop
between generations, and the learner ``past_grace`` before every gradient step (it may run
``grace_s`` past the limit, no more); see ``tw_rl.training.loop``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RunClock:
    """When this process started, and until when it may run."""

    max_minutes: float  # the run's limit per start (0: none)
    grace_s: float  # how long a generation's learning may run past the limit
    started: float = field(default_factory=time.monotonic)  # time.monotonic() at this start

    @property
    def deadline(self) -> float | None:
        """``time.monotonic()`` past which no new game starts; None without a limit."""
        return self.started + 60 * self.max_minutes if self.max_minutes else None

    def wall_deadline(self) -> float | None:
        """The deadline on ``time.time()``'s clock (for workers in other processes and machines)."""
        deadline = self.deadline
        return None if deadline is None else time.time() + deadline - time.monotonic()

    def out_of_time(self) -> bool:
        """Whether the limit has passed."""
        deadline = self.deadline
        return deadline is not None and time.monotonic() >= deadline

    def past_grace(self) -> bool:
        """Whether the limit and the learner's grace after it have passed."""
        deadline = self.deadline
        return deadline is not None and time.monotonic() >= deadline + self.grace_s

    def minutes(self) -> float:
        """Wall minutes since this start."""
        return (time.monotonic() - self.started) / 60
