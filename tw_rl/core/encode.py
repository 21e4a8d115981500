"""Network and observation encoding: input planes, the cell grid, and symmetries on them.

Planes sit on the (2n-1) x (2n-1) axial grid of ``hexgrid`` (off-board squares are 0), seen
from the side to act ("me"), so the same network plays both colours:

    0 my stacks          1 their stacks          2 the neutral stack
    3 my heights / 6     4 their heights / 6     5 neutral height / 6
    6 my sight / 6       7 their sight / 6       8 my legal placements
    9 on the board      10 I play red (constant) 11 set-up phase (constant)
   12 my territory      13 their territory        (with ``territory=True``)

Actions are cell indices and N for a pass; a symmetry permutes cells and fixes the pass.
"""

from __future__ import annotations

import numpy as np

from tw_rl.core.hexgrid import HexGrid, inverse_permutation
from tw_rl.core.rules import Rules
from tw_rl.core.state import NEUTRAL, PLAY, RED, State

BASE_PLANES = 12
TERRITORY_PLANES = 2


def num_planes(territory: bool = True) -> int:
    """Input planes of ``encode`` (with or without the two territory planes)."""
    return BASE_PLANES + (TERRITORY_PLANES if territory else 0)


def cells_to_grid(grid: HexGrid, values: np.ndarray) -> np.ndarray:
    """[..., N] per-cell values -> [..., W, W] on the axial grid (off-board squares 0)."""
    out = np.zeros(values.shape[:-1] + (grid.width * grid.width,), dtype=values.dtype)
    flat = grid.coords[:, 0] * grid.width + grid.coords[:, 1]
    out[..., flat] = values
    return out.reshape(values.shape[:-1] + (grid.width, grid.width))


def grid_to_cells(grid: HexGrid, planes: np.ndarray) -> np.ndarray:
    """[..., W, W] -> [..., N]: the inverse of ``cells_to_grid``."""
    return planes[..., grid.coords[:, 0], grid.coords[:, 1]]


def encode(rules: Rules, state: State, territory: bool = True) -> np.ndarray:
    """[B, C, W, W] float32 planes of every position, from the side to act."""
    grid = rules.grid
    batch, num = state.owner.shape
    me = np.where(state.to_move == RED, 1, 2).astype(np.int8)
    setup = state.phase != PLAY
    # In set-up the host acts; it is seen as red until the pie decides.
    me[setup] = RED
    them = 3 - me
    mine = state.owner == me[:, None]
    theirs = state.owner == them[:, None]
    neutral = state.owner == NEUTRAL
    height = state.height.astype(np.float32) / 6.0
    rows = np.arange(batch)
    my_index = (me - 1).astype(np.intp)
    cells = np.zeros((batch, num_planes(territory), num), dtype=np.float32)
    cells[:, 0] = mine
    cells[:, 1] = theirs
    cells[:, 2] = neutral
    cells[:, 3] = height * mine
    cells[:, 4] = height * theirs
    cells[:, 5] = height * neutral
    cells[:, 6] = state.sight[rows, my_index] / 6.0
    cells[:, 7] = state.sight[rows, 1 - my_index] / 6.0
    cells[:, 8] = rules.legal_mask(state)[:, :num]
    cells[:, 9] = 1.0
    cells[:, 10] = (me == RED)[:, None]
    cells[:, 11] = setup[:, None]
    if territory:
        rules.ensure_territory(state)
        cells[:, 12] = state.territory[rows, my_index]
        cells[:, 13] = state.territory[rows, 1 - my_index]
    return cells_to_grid(grid, cells)


def symmetry_cells(grid: HexGrid, values: np.ndarray, symmetry: int) -> np.ndarray:
    """Apply symmetry ``symmetry`` (0..11) to per-cell values [..., N]."""
    inverse = inverse_permutation(grid.symmetries[symmetry])
    return values[..., inverse]


def symmetry_actions(grid: HexGrid, policy: np.ndarray, symmetry: int) -> np.ndarray:
    """Apply a symmetry to per-action values [..., N+1] (the pass stays put)."""
    out = policy.copy()
    out[..., : grid.num_cells] = symmetry_cells(grid, policy[..., : grid.num_cells], symmetry)
    return out


def symmetry_planes(grid: HexGrid, planes: np.ndarray, symmetry: int) -> np.ndarray:
    """Apply a symmetry to planes [..., W, W]."""
    return cells_to_grid(grid, symmetry_cells(grid, grid_to_cells(grid, planes), symmetry))


def random_symmetries(grid: HexGrid, count: int, rng: np.random.Generator) -> np.ndarray:
    """[count, N] cell gathers of a random one of the 12 symmetries per row (drawn with one
    ``rng.integers(0, 12, size=count)``): apply them with ``gather_cells`` / ``gather_actions``
    to a batch of samples. Row ``r`` under symmetry ``s`` equals ``symmetry_cells(grid, row, s)``."""
    inverse = np.stack([inverse_permutation(p) for p in grid.symmetries])
    return inverse[rng.integers(0, len(grid.symmetries), size=count)]  # new[i] = old[inverse[i]]


def gather_cells(values: np.ndarray, gather: np.ndarray) -> np.ndarray:
    """Per-cell values [B, N] or [B, N, K] permuted row by row (``gather`` [B, N])."""
    index = gather if values.ndim == 2 else gather.reshape(gather.shape + (1,) * (values.ndim - 2))
    return np.take_along_axis(values, index, axis=1)


def gather_actions(values: np.ndarray, gather: np.ndarray) -> np.ndarray:
    """Per-action values [B, N+1] permuted row by row; the pass (last column) stays put."""
    return np.concatenate([gather_cells(values[:, :-1], gather), values[:, -1:]], axis=1)
