"""A policy-value function without a network: the simulated territory margin.

Priors are uniform over the legal actions; the value is tanh(scale * margin) with margin =
(territory of the side to act - the other's) / N. It drives the search before any training,
and serves as a fixed, cheap opponent in tests and benchmarks.
"""

from __future__ import annotations

import numpy as np

from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, State


class TerritoryPolicyValue:
    """Callable ``(state) -> (priors [B, A], values [B])`` from the simulated territory."""

    def __init__(self, rules: Rules, scale: float = 4.0):
        self.rules = rules
        self.scale = scale

    def __call__(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        legal = self.rules.legal_mask(state)
        priors = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1)
        self.rules.ensure_territory(state)
        counts = state.territory.sum(axis=2, dtype=np.int32)
        margin = (counts[:, 0] - counts[:, 1]) / self.rules.num_cells
        margin = np.where(state.to_move == RED, margin, -margin)
        return priors.astype(np.float32), np.tanh(self.scale * margin).astype(np.float32)
