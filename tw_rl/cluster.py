"""Connecting to Ray: start a local one or join a cluster, and leave it as found.

The single place that starts Ray for tw_rl (self-play workers in ``tw_rl.training.ray_selfplay``, rating
games in ``tw_rl.rating.ray_games``). Ray is an optional extra (``pip install -e '.[ray]'``) and is
imported here only when an address is given; the one-process training path never calls this.

Addresses: ``local`` starts a Ray instance on this machine (``cpus`` of its CPUs, default all);
``auto`` joins the cluster this machine belongs to (started with ``ray start``); ``HOST:PORT``
joins that cluster's head and ``ray://HOST:PORT`` goes through Ray Client.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
from collections.abc import Iterator


class RayUnavailable(RuntimeError):
    """Ray was asked for but is not installed; the message says how to get it."""


def ray_installed() -> bool:
    """Whether Ray can be imported (checked without importing it)."""
    return importlib.util.find_spec("ray") is not None


def _import_ray():
    try:
        import ray
    except ImportError as err:
        raise RayUnavailable(f"Ray is not installed ({err}); pip install -e '.[ray]'") from None
    return ray


@contextlib.contextmanager
def ray_session(address: str, cpus: float | None = None) -> Iterator[object]:
    """Ray, connected (``ray.init``) for the block; yields the ``ray`` module.

    A session that this call opened is shut down at the end (a local Ray stops with it); one
    already open (a caller that did its own ``ray.init``) is used and left open.
    """
    if not address:
        raise ValueError("ray_session needs an address: local, auto, HOST:PORT or ray://HOST:PORT")
    ray = _import_ray()
    if ray.is_initialized():
        yield ray
        return
    options = {"logging_level": "WARNING", "log_to_driver": True}
    if address == "local":
        # Ray sizes object store and workers from num_cpus; no dashboard (saves a process per run).
        ray.init(
            num_cpus=None if cpus is None else max(1, math.ceil(cpus)), include_dashboard=False, **options
        )
    else:
        ray.init(address=address, **options)
    try:
        yield ray
    finally:
        ray.shutdown()
