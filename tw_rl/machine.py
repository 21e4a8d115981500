"""What this machine lets a process use: the CPU cores it may run on."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The CPU cores this process may use (its affinity mask, so ``taskset`` and container
    limits on the mask count; the machine's count where the mask cannot be read)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
