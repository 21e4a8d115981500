"""The one protocol of in-process players: ``player(rules, state, rng) -> actions``.

A player gets a batch of positions where it is to move (``State``, leading batch axis) and
returns one action per game (``[B]`` int64; cells ``0..N-1``, ``N`` for the pass; finished
games' actions are ignored). The batched baselines (``tw_rl.core.baselines``), the training
checkpoints' search and raw policy, the rating's players and the environments' opponents all
have this shape; where another shape is wanted (the Gymnasium opponent's ``(observation, mask,
rng)``, a CodeCup program's ``choose(position, seconds_left)``) a thin adapter wraps one.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tw_rl.core.rules import Rules
from tw_rl.core.state import State

Player = Callable[[Rules, State, np.random.Generator], np.ndarray]
