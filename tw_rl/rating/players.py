"""In-process player builders: the UCT baseline, a checkpoint's search or raw policy, a student's
raw policy, each as a batched player (``tw_rl.core.player``: ``(rules, state, rng) -> actions``).

The player kinds (``tw_rl.rating.player_kinds``) build their players with these.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tw_rl.codecup.players import UctPlayer
from tw_rl.codecup.rules import Board
from tw_rl.codecup.weights import WeightsError
from tw_rl.core.mcts import SearchConfig
from tw_rl.core.player import Player
from tw_rl.core.rules import Rules
from tw_rl.core.state import State
from tw_rl.export.student import torch_outputs
from tw_rl.export.weights_file import load_student
from tw_rl.rating.kinds import RatingError
from tw_rl.scalar_position import state_position
from tw_rl.training.checkpoint import CheckpointError, load_net
from tw_rl.training.match import raw_policy_player, search_player
from tw_rl.training.net import NetPolicyValue, resolve_device


def uct_player(playouts: int) -> Player:
    """The standard-library UCT player as a batched player (one game after the other)."""
    boards: dict[int, Board] = {}

    def play(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
        board = boards.setdefault(rules.size, Board(rules.size))
        actions = np.zeros(state.batch_size, dtype=np.int64)
        for g in range(state.batch_size):
            if state.terminated[g]:
                continue
            player = UctPlayer(playouts=playouts, seed=int(rng.integers(2**31)))
            actions[g] = player.choose(state_position(board, state, g))
        return actions

    return play


def checkpoint_player(path: str | Path, simulations: int, rules: Rules, device: str = "cpu") -> Player:
    """A training checkpoint: its search with ``simulations`` a move, or its raw policy at 0."""
    dev = resolve_device(device)
    try:
        net, _ = load_net(Path(path), rules.size, dev, user="the rating run")
    except CheckpointError as err:
        raise RatingError(str(err)) from None
    policy_value = NetPolicyValue(net, rules, dev)
    if simulations <= 0:
        return raw_policy_player(policy_value)
    return search_player(policy_value, SearchConfig(simulations=simulations))


def student_player(path: str | Path, rules: Rules) -> Player:
    """The raw policy of a student weights file: its most likely legal move, batched."""
    try:
        net = load_student(Path(path), rules.size)
    except WeightsError as err:
        raise RatingError(f"student:{path}: {err}") from None

    def play(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
        logits, _, legal = torch_outputs(net, rules, state)
        return np.argmax(np.where(legal, logits, -np.inf), axis=1)

    return play
