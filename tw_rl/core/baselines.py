"""Batched baseline players on the numpy engine: ``random`` and ``greedy``.

The same anchors as the CodeCup programs in ``tw_rl.codecup.players``, but playing a whole
batch of games per call, for the arena of a training run and for rating runs.
``greedy`` plays the move after which the simulated territory margin (own cells - the
other's) is largest, ties broken at random.
"""

from __future__ import annotations

import numpy as np

from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, State


def random_actions(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
    """[B] a uniformly random legal action per game (0 for finished games)."""
    legal = rules.legal_mask(state)
    return (rng.random(legal.shape) * legal).argmax(axis=1)


def greedy_actions(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
    """[B] the legal action with the best simulated territory margin after it, per game."""
    legal = rules.legal_mask(state)
    actions = np.zeros(state.batch_size, dtype=np.int64)
    games, moves = np.nonzero(legal)
    if not games.size:
        return actions
    children = rules.step(state[games], moves)
    rules.ensure_territory(children)
    counts = children.territory.sum(axis=2, dtype=np.int32)
    margin = np.where(state.to_move[games] == RED, counts[:, 0] - counts[:, 1], counts[:, 1] - counts[:, 0])
    # Sort by game, then by margin plus a random tie-break, best last; take each game's last.
    order = np.lexsort((rng.random(games.size), margin, games))
    last = np.r_[games[order][1:] != games[order][:-1], True]
    actions[games[order][last]] = moves[order][last]
    return actions


BASELINES = {"random": random_actions, "greedy": greedy_actions}
