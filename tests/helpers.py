"""Shared test helpers: positions from small tables of named stacks, random play, the CodeCup
forfeit score by the written formula, the tiny training run's config."""

from __future__ import annotations

import math
import subprocess

import numpy as np

from tw_rl.codecup import rules as scalar
from tw_rl.core.notation import parse_cell
from tw_rl.core.rules import Rules
from tw_rl.core.state import NEUTRAL, RED, WHITE, State

CODES = {"r": RED, "w": WHITE, "n": NEUTRAL}


def make_position(rules: Rules, stacks: str, to_move: int = RED, passes: int = 0) -> State:
    """A one-game State from a table like 'F6:n2 C3:r1 D4:w2' (name:owner height)."""
    grid = rules.grid
    owner = np.zeros(grid.num_cells, dtype=np.int8)
    height = np.zeros(grid.num_cells, dtype=np.int8)
    for item in stacks.split():
        name, stack = item.split(":")
        cell = parse_cell(grid, name, allow_pass=False)
        owner[cell] = CODES[stack[0]]
        height[cell] = int(stack[1:])
    return rules.position(owner, height, to_move, passes)


def cell(rules: Rules, name: str) -> int:
    return parse_cell(rules.grid, name)


def random_actions(legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row (rows with none get action 0)."""
    return (rng.random(legal.shape) * legal).argmax(axis=1)


def random_positions(rules: Rules, batch: int, plies: int, rng: np.random.Generator) -> State:
    """Games played at random for up to ``plies`` moves (finished ones stop where they ended)."""
    state = rules.init(batch, rng)
    for _ in range(plies):
        state = rules.step(state, random_actions(rules.legal_mask(state), rng))
    return state


def forfeit_points(red: int, white: int, moves: list[int], offender: int) -> tuple[int, int]:
    """The CodeCup forfeit score after ``moves``, by the scalar engine and the written formula."""
    board = scalar.Board(6)
    position = scalar.Position.start(board, red, white)
    for move in moves:
        position.play(move)
    red_cells, white_cells = position.territory()
    neutral = board.num_cells - len(set(red_cells) | set(white_cells))
    own = len(white_cells) if offender == RED else len(red_cells)
    points = 200 + own + math.floor(0.9 * neutral)
    return (0, points) if offender == RED else (points, 0)


def stop_process(process: subprocess.Popen, grace: float = 10.0) -> None:
    """Terminate a server or program started by a test, and kill it if it outlives ``grace`` s."""
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def tiny_train_config(run_dir, **changes):
    """The tiny training run the tests share: one block of 8 channels, 2 games a generation at 3
    simulations, 2 learner steps, no arena, one generation, on the CPU; ``changes`` replace
    fields of the ``TrainConfig``. tw_rl.config is imported here, so core tests need not."""
    from tw_rl.config import (
        ArenaConfig,
        LearnerConfig,
        NetConfig,
        SelfPlayConfig,
        TrainConfig,
    )
    from tw_rl.core.mcts import SearchConfig

    values = dict(
        net=NetConfig(name="tiny", blocks=1, channels=8, pool_every=1, head_channels=8),
        search=SearchConfig(simulations=3, cheap_simulations=2, full_search_fraction=0.5),
        selfplay=SelfPlayConfig(games_per_generation=2, parallel_games=2),
        learner=LearnerConfig(batch_size=16, steps_per_generation=2, min_samples=8),
        arena=ArenaConfig(every=0),
        generations=1,
        run_dir=str(run_dir),
        device="cpu",
        progress=False,
    )
    values.update(changes)
    return TrainConfig(**values)
