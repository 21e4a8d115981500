"""Rating games as Ray tasks: one pairing's games spread over a Ray cluster, stored as they return.

``tw_rl.rating.rating_run.run_rating`` with ``ray_address`` set plays each pairing here
instead of in its own process: in-process players (baselines, checkpoints) as ``jobs`` tasks of
up to ``batch_size`` batched games each, outside programs as one task per referee game (``jobs``
at once). Slots, openings and seeds are chosen by the calling process as without Ray; the
results come back to it and it alone writes the database, so a killed rating run still loses
only the games in flight. On a cluster, checkpoints, weights files and programs must be at the
same paths on every node (a shared filesystem) and tw_rl installed on each.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import ray
import torch

from tw_rl.config import RatingConfig
from tw_rl.core.rules import Rules
from tw_rl.rating.games import referee_slot_game
from tw_rl.rating.kinds import PlayerSpec, kind_of
from tw_rl.rating.player_specs import make_player
from tw_rl.training.match import MatchGame, Slot, play_batch


@ray.remote(num_cpus=1)
def _play_slots(
    size: int,
    specs: Mapping[str, PlayerSpec],
    slots: Sequence[Slot],
    indices: Sequence[int],
    seed: int,
    cfg: RatingConfig,
    in_process: bool,
) -> list[MatchGame]:
    """A task: the slots batched (in-process players) or one after the other (the referee)."""
    rules = Rules(size, "codecup")
    if in_process:
        if any(kind_of(spec).uses_torch for spec in specs.values()):
            torch.set_num_threads(cfg.threads if cfg.threads > 0 else 1)
        players = {name: make_player(spec, rules, cfg.device) for name, spec in specs.items()}
        return play_batch(rules, players, slots, np.random.default_rng([seed, slots[0].opening]))
    return [
        referee_slot_game(rules, specs, k, slot, cfg.time, seed, memory_mb=cfg.memory)
        for k, slot in zip(indices, slots, strict=True)
    ]


def play_slots_on_ray(
    rules: Rules,
    specs: Mapping[str, PlayerSpec],
    slots: Sequence[Slot],
    cfg: RatingConfig,
    seed: int,
    in_process: bool,
    store: Callable[[MatchGame], None],
) -> None:
    """Play a pairing's slots as Ray tasks (Ray already connected); ``store`` each finished game
    as its task returns. An interruption cancels the tasks still running."""
    if not slots:
        return
    if in_process:
        size = math.ceil(len(slots) / cfg.jobs)
        size += size % 2  # the two games of an opening stay together
    else:
        size = 1
    pending = {}
    for start in range(0, len(slots), size):
        part = list(slots[start : start + size])
        indices = list(range(start, start + len(part)))
        ref = _play_slots.remote(rules.size, dict(specs), part, indices, seed, cfg, in_process)
        pending[ref] = part
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                pending.pop(ref)
                for game in ray.get(ref):
                    store(game)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
