"""In-process players: a PlayerSpec made into a batched player (baseline, UCT, checkpoint, student).

A batched player is a function ``(rules, state, rng) -> actions``: one action per game of the
batch, called by ``tw_rl.rating.games.play_batch`` on the games where it is to move.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from tw_rl.codecup.players import UctPlayer
from tw_rl.codecup.rules import Board
from tw_rl.codecup.weights import WeightsError
from tw_rl.core.baselines import BASELINES
from tw_rl.core.mcts import SearchConfig
from tw_rl.core.rules import Rules
from tw_rl.core.state import State
from tw_rl.export.student import torch_outputs
from tw_rl.export.weights_file import load_student
from tw_rl.rating.player_specs import DEFAULT_PLAYOUTS, ArenaError, PlayerSpec
from tw_rl.scalar_position import state_position
from tw_rl.training.checkpoint import CheckpointError, load_checkpoint, net_from_checkpoint
from tw_rl.training.match import raw_policy_player, search_player
from tw_rl.training.net import NetPolicyValue, resolve_device

Player = Callable[[Rules, State, np.random.Generator], np.ndarray]


def uct_player(playouts: int = DEFAULT_PLAYOUTS) -> Player:
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


def checkpoint_player(spec: PlayerSpec, rules: Rules, device: str = "cpu") -> Player:
    """A training checkpoint: its search with ``spec.simulations``, or its raw policy at 0."""
    try:
        payload = load_checkpoint(Path(spec.path))
    except CheckpointError as err:
        raise ArenaError(str(err)) from None
    if int(payload["size"]) != rules.size:
        raise ArenaError(
            f"{spec.path} is for board size {payload['size']}, the arena plays size {rules.size}"
        )
    dev = resolve_device(device)
    policy_value = NetPolicyValue(net_from_checkpoint(payload, dev), rules, dev)
    if spec.simulations <= 0:
        return raw_policy_player(policy_value)
    return search_player(policy_value, SearchConfig(simulations=spec.simulations))


def student_player(path: str | Path, rules: Rules) -> Player:
    """The raw policy of a student weights file: its most likely legal move, batched."""
    try:
        net = load_student(Path(path), rules.size)
    except WeightsError as err:
        raise ArenaError(f"student:{path}: {err}") from None

    def play(rules: Rules, state: State, rng: np.random.Generator) -> np.ndarray:
        logits, _, legal = torch_outputs(net, rules, state)
        return np.argmax(np.where(legal, logits, -np.inf), axis=1)

    return play


def make_player(spec: PlayerSpec, rules: Rules, device: str = "cpu") -> Player:
    """The batched in-process player of a spec (checkpoints are loaded here)."""
    if spec.kind == "baseline":
        return uct_player(spec.playouts) if spec.label == "mcts" else BASELINES[spec.label]
    if spec.kind == "checkpoint":
        return checkpoint_player(spec, rules, device)
    if spec.kind == "student":
        return student_player(spec.path, rules)
    raise ArenaError(f"{spec.name}: a {spec.kind} player cannot play in-process")
