"""The batched numpy engine against the scalar standard-library twin, move by move.

Random games (with the odd pass and the odd illegal move) run through both engines in
lockstep; after every move the legal moves, stacks, territory, game end and score must be
identical. Both paths of the batched engine take part: the compiled kernel
(``tw_rl.core.kernel``, skipped where it cannot be built) and its numpy reference. The default
run is a short form; ``-m slow`` plays thousands of games (``TW_CROSS_GAMES`` per size and
variant, default 500).
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from tw_rl.codecup import rules as scalar
from tw_rl.core import kernel
from tw_rl.core.hexgrid import SIZES, hexgrid
from tw_rl.core.notation import cell_names
from tw_rl.core.rules import Rules

VARIANTS = [("codecup", False), ("official", False), ("official", True)]


@pytest.fixture(params=["compiled", "numpy"])
def batched_engine(request):
    """The batched engine's path for the test: the compiled kernel or the numpy reference."""
    if request.param == "compiled" and not kernel.compiled_available():
        pytest.skip(f"the compiled kernel is unavailable: {kernel.why_unavailable()}")
    with kernel.engine("c" if request.param == "compiled" else "numpy"):
        yield request.param


def test_geometry_and_names_agree():
    for size in SIZES:
        grid = hexgrid(size)
        board = scalar.Board(size)
        assert board.num_cells == grid.num_cells and board.centre == grid.centre
        assert [tuple(c) for c in grid.coords.tolist()] == list(board.coords)
        for notation in ("diff", "sum"):
            assert cell_names(grid, notation) == [board.name(i, notation) for i in range(board.num_cells)]
        for i in range(grid.num_cells):
            assert sorted(n for n in grid.neighbours[i] if n >= 0) == sorted(board.neighbours[i])
            assert bool(grid.on_border[i]) == board.on_border(i)


def pick_move(position: scalar.Position, rng: random.Random, variant: str, num_cells: int) -> int:
    """A random legal move, now and then a pass (official) or an illegal move (a forfeit)."""
    legal = position.legal_moves()
    if rng.random() < 0.003:
        return rng.choice([m for m in range(num_cells + 1) if m not in legal] or legal)
    if variant == "official" and rng.random() < 0.05:
        return num_cells
    placements = [m for m in legal if m != num_cells]
    return rng.choice(placements or legal)


def cross_check(size: int, variant: str, stale_end: bool, games: int, seed: int) -> int:
    """Play ``games`` games through both engines; returns the number of positions compared."""
    rules = Rules(size, variant, setup="judge", stale_end=stale_end)
    board = scalar.Board(size)
    rng = random.Random(seed)
    n = board.num_cells
    twins = []
    for _ in range(games):
        red, white = scalar.judge_start(board, rng)
        twins.append(scalar.Position.start(board, red, white, variant, stale_end))
    starts = [(t.owner.index(scalar.RED), t.owner.index(scalar.WHITE)) for t in twins]
    state = rules.start(*zip(*starts, strict=True))
    compared = 0
    while True:
        rules.ensure_territory(state)
        legal = rules.legal_mask(state)
        for g, twin in enumerate(twins):
            where = f"size {size} {variant} game {g} ply {twin.ply}"
            assert state.owner[g].tolist() == twin.owner, where
            assert state.height[g].tolist() == twin.height, where
            assert bool(state.terminated[g]) == twin.over, where
            assert np.flatnonzero(legal[g]).tolist() == twin.legal_moves(), where
            red_terr, white_terr = twin.territory()
            assert np.flatnonzero(state.territory[g, 0]).tolist() == red_terr, where
            assert np.flatnonzero(state.territory[g, 1]).tolist() == white_terr, where
            compared += 1
        score = rules.score(state)
        winner = rules.winner(state)
        for g, twin in enumerate(twins):
            assert tuple(score[g].tolist()) == twin.score(), f"size {size} {variant} game {g}"
            if twin.over:
                assert int(winner[g]) == twin.winner()
        if all(t.over for t in twins):
            return compared
        actions = np.zeros(len(twins), dtype=np.int64)
        for g, twin in enumerate(twins):
            if not twin.over:
                actions[g] = pick_move(twin, rng, variant, n)
                twin.play(int(actions[g]))
        state = rules.step(state, actions)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("variant,stale_end", VARIANTS)
def test_engines_agree_short(size, variant, stale_end, batched_engine):
    games = 6 if size <= 8 else 2
    assert cross_check(size, variant, stale_end, games, seed=size) > games * 10


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("variant,stale_end", VARIANTS)
def test_engines_agree_thousands(size, variant, stale_end, batched_engine):
    games = int(os.environ.get("TW_CROSS_GAMES", "500"))
    for chunk in range(0, games, 100):
        cross_check(size, variant, stale_end, min(100, games - chunk), seed=1000 * size + chunk)
