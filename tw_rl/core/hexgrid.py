"""Hexhex board geometry: cells, rays, lines and the 12 symmetries, as numpy tables.

Cells live on an axial grid (col, row), both in 0..2n-2, a cell being valid iff
|col - row| <= n-1. For n = 3 the grid looks like this (cell indices, ``.`` = off board)::

        row: 0  1  2  3  4
    col 0:   0  1  2  .  .
    col 1:   3  4  5  6  .
    col 2:   7  8  9 10 11        centre = 9 = (2, 2)
    col 3:   . 12 13 14 15
    col 4:   .  . 16 17 18

Two cells are neighbours when they differ by one of the six DIRECTIONS below; the two other
corners of a 3x3 square, (+1, -1) and (-1, +1), are not neighbours. Cell indices run in
(col, row) order. How cells are *named* is the business of ``notation``; nothing here depends
on it. Everything here is built once per board size and cached.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

SIZES = (6, 8, 10, 11)

# The six directions in a fixed order: opposite directions are adjacent (0/1, 2/3, 4/5).
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1))

# The three line axes: a line runs along DIRECTIONS[2 * axis].
AXES = ((1, 0), (0, 1), (1, 1))


@dataclass(frozen=True, eq=False)
class HexGrid:
    """Geometry tables of one board size (read-only numpy arrays)."""

    size: int
    num_cells: int
    width: int
    coords: np.ndarray  # [N, 2] (col, row) of every cell
    grid_index: np.ndarray  # [width, width] cell index, -1 off board
    centre: int
    neighbours: np.ndarray  # [N, 6] neighbour index per direction, -1 off board
    on_border: np.ndarray  # [N] bool
    rays: np.ndarray  # [N, 6, width-1] cells along each ray, nearest first, padded with N
    lines: np.ndarray  # [3 * width, width] cells of each line, padded with N at the end
    line_slot: np.ndarray  # [3, N] flat position of each cell in ``lines`` per axis
    symmetries: np.ndarray  # [12, N] cell permutations; symmetries[0] is the identity

    @property
    def num_actions(self) -> int:
        return self.num_cells + 1


def check_size(size: int) -> int:
    """Return ``size`` if it is a supported board size, else raise a one-line ValueError."""
    if size not in SIZES:
        raise ValueError(f"board size must be one of {SIZES} cells per side, got {size!r}")
    return int(size)


@functools.cache
def hexgrid(size: int) -> HexGrid:
    """The geometry of the board with ``size`` cells per side (cached)."""
    n = check_size(size)
    width = 2 * n - 1
    coords = [(c, r) for c in range(width) for r in range(width) if abs(c - r) <= n - 1]
    num = len(coords)
    assert num == 3 * n * (n - 1) + 1
    grid_index = np.full((width, width), -1, dtype=np.int32)
    for i, (c, r) in enumerate(coords):
        grid_index[c, r] = i

    def cell_at(c: int, r: int) -> int:
        if 0 <= c < width and 0 <= r < width:
            return int(grid_index[c, r])
        return -1

    neighbours = np.full((num, 6), -1, dtype=np.int32)
    rays = np.full((num, 6, width - 1), num, dtype=np.int32)
    for i, (c, r) in enumerate(coords):
        for d, (dc, dr) in enumerate(DIRECTIONS):
            k, cc, rr = 0, c + dc, r + dr
            while cell_at(cc, rr) >= 0:
                rays[i, d, k] = cell_at(cc, rr)
                k, cc, rr = k + 1, cc + dc, rr + dr
            neighbours[i, d] = rays[i, d, 0] if k else -1
    on_border = (neighbours < 0).any(axis=1)

    # Lines along each axis, each starting at the cell with no predecessor on that axis.
    lines = np.full((3 * width, width), num, dtype=np.int32)
    line_slot = np.full((3, num), -1, dtype=np.int32)
    for a, (dc, dr) in enumerate(AXES):
        starts = [i for i, (c, r) in enumerate(coords) if cell_at(c - dc, r - dr) < 0]
        assert len(starts) == width
        for j, s in enumerate(starts):
            line = a * width + j
            c, r = coords[s]
            k = 0
            while cell_at(c, r) >= 0:
                lines[line, k] = cell_at(c, r)
                line_slot[a, cell_at(c, r)] = line * width + k
                k, c, r = k + 1, c + dc, r + dr
    assert (line_slot >= 0).all()

    symmetries = _symmetries(coords, n, grid_index)
    tables = dict(
        coords=np.array(coords, dtype=np.int32),
        grid_index=grid_index,
        neighbours=neighbours,
        on_border=on_border,
        rays=rays,
        lines=lines,
        line_slot=line_slot,
        symmetries=symmetries,
    )
    for arr in tables.values():
        arr.setflags(write=False)
    return HexGrid(
        size=n,
        num_cells=num,
        width=width,
        centre=int(grid_index[n - 1, n - 1]),
        **tables,
    )


def _symmetries(coords: list[tuple[int, int]], n: int, grid_index: np.ndarray) -> np.ndarray:
    """The 12 symmetries as permutations: perm[s, i] is where cell i goes under symmetry s.

    With u = col - (n-1), v = row - (n-1), the cube coordinates (x, y, z) = (u, v - u, -v)
    satisfy x + y + z = 0; a 60-degree rotation is (x, y, z) -> (-z, -x, -y) and a
    reflection is (x, y, z) -> (x, z, y). Symmetry s = 2 * k + m rotates k times after
    reflecting m times.
    """
    perms = np.empty((12, len(coords)), dtype=np.int32)
    for k in range(6):
        for m in range(2):
            for i, (c, r) in enumerate(coords):
                u, v = c - (n - 1), r - (n - 1)
                x, y, z = u, v - u, -v
                if m:
                    y, z = z, y
                for _ in range(k):
                    x, y, z = -z, -x, -y
                perms[2 * k + m, i] = grid_index[x + n - 1, -z + n - 1]
    return perms


def inverse_permutation(perm: np.ndarray) -> np.ndarray:
    """The inverse of a permutation array."""
    inv = np.empty_like(perm)
    inv[perm] = np.arange(len(perm), dtype=perm.dtype)
    return inv
