"""Batched sight: how many red and white stacks every cell sees.

A cell sees, along each of its six rays, the first stack on that ray. Instead of walking
rays cell by cell, the board is cut into its 3 * (2n-1) straight lines; along a line the
nearest stack before each slot is carried forward slot by slot (an empty slot lets it pass, a
stack replaces it), and the nearest stack after it is the same scan reversed. That touches each
cell three times instead of ~6 * (2n-2) times.

The scan runs on cell-major arrays ([N, B]: the batch is the fast axis), one vectorised
bitwise step per slot of a line, and counts both colours at once in one int8 ("packed":
red + 8 * white). ``compute_sight_numpy`` unpacks it for the batch-major arrays of ``State``;
``compute_sight`` takes the compiled kernel instead when it is available (``tw_rl.core.kernel``),
tested equal to it.
"""

from __future__ import annotations

import functools

import numpy as np

from tw_rl.core import kernel
from tw_rl.core.hexgrid import HexGrid
from tw_rl.core.state import EMPTY, RED, WHITE

WHITE_SHIFT = 3  # packed sight = red + 8 * white (each at most 6)


@functools.cache
def _line_tables(grid: HexGrid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    width = grid.width
    num_lines = grid.lines.shape[0]
    # Slot k of line l sits at row k * lines + l; one more row (the padding cell N, always
    # empty) follows the scanned slots, as the "nothing there" row.
    lines_flat = np.append(np.ascontiguousarray(grid.lines.T).reshape(-1), grid.num_cells)
    zero_row = width * num_lines
    before = np.empty((3, grid.num_cells), dtype=np.intp)
    after = np.empty((3, grid.num_cells), dtype=np.intp)
    for axis, slot in enumerate(grid.line_slot):
        line, k = slot // width, slot % width
        before[axis] = np.where(k > 0, (k - 1) * num_lines + line, zero_row)
        after[axis] = np.where(k < width - 1, (k + 1) * num_lines + line, zero_row)
    return lines_flat, before, after


def packed_sight(grid: HexGrid, owner_t: np.ndarray) -> np.ndarray:
    """[N, B] int8 packed sight (red + 8 * white) from a cell-major owner array [N, B]."""
    num, batch = owner_t.shape
    lines_flat, before, after = _line_tables(grid)
    width, num_lines = grid.width, grid.lines.shape[0]
    # Per cell (plus an always-empty padding row): what a seen stack adds to the packed count
    # (red 1, white 8, neutral 0), and -1 where the view passes through (empty cells only).
    value_cells = np.zeros((num + 1, batch), dtype=np.int8)
    np.add((owner_t == RED).view(np.int8), (owner_t == WHITE).view(np.int8) << 3, out=value_cells[:num])
    pass_cells = np.full((num + 1, batch), -1, dtype=np.int8)
    np.negative((owner_t == EMPTY).view(np.int8), out=pass_cells[:num])
    slots = width * num_lines
    passes = pass_cells[lines_flat[:slots]].reshape(width, num_lines, batch)
    # forward[k]: the value of the nearest stack at or before slot k of each line (0 if none or
    # neutral); backward[k] the same looking the other way. A stack hides what is behind it.
    forward = value_cells[lines_flat]
    backward = value_cells[lines_flat]
    fwd = forward[:slots].reshape(width, num_lines, batch)
    bwd = backward[:slots].reshape(width, num_lines, batch)
    carry = np.empty((num_lines, batch), dtype=np.int8)
    for k in range(1, width):
        np.bitwise_and(fwd[k - 1], passes[k], out=carry)
        np.bitwise_or(fwd[k], carry, out=fwd[k])
        j = width - k - 1
        np.bitwise_and(bwd[j + 1], passes[j], out=carry)
        np.bitwise_or(bwd[j], carry, out=bwd[j])
    # A cell sees, on each of its three lines, the nearest stack strictly before and after it.
    out = np.take(forward, before[0], axis=0)
    for rows, table in ((before[1], forward), (before[2], forward), (after[0], backward)):
        out += np.take(table, rows, axis=0)
    out += np.take(backward, after[1], axis=0)
    out += np.take(backward, after[2], axis=0)
    return out


def compute_sight(grid: HexGrid, owner: np.ndarray) -> np.ndarray:
    """[B, 2, N] int8: red (index 0) and white (index 1) stacks seen by each cell.

    ``owner`` is [B, N] int8 with EMPTY / RED / WHITE / NEUTRAL codes. A stack on the cell
    itself does not block its own view. Compiled when available, else ``compute_sight_numpy``.
    """
    if kernel.use_compiled():
        return kernel.compiled_sight(grid, owner)
    return compute_sight_numpy(grid, owner)


def compute_sight_numpy(grid: HexGrid, owner: np.ndarray) -> np.ndarray:
    """The numpy reference of ``compute_sight`` (same argument and result)."""
    packed = packed_sight(grid, np.ascontiguousarray(owner.T, dtype=np.int8)).T
    out = np.empty((owner.shape[0], 2, owner.shape[1]), dtype=np.int8)
    np.bitwise_and(packed, 7, out=out[:, 0])
    np.right_shift(packed, WHITE_SHIFT, out=out[:, 1])
    return out
