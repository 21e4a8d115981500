"""Batched sight: how many red and white stacks every cell sees.

A cell sees, along each of its six rays, the first stack on that ray. Instead of walking
rays cell by cell, the board is cut into its 3 * (2n-1) straight lines; along a line the first
stack before a slot is a running maximum of (position, owner) codes, and the first stack after
it is the same scan reversed. That touches each cell three times instead of ~6 * (2n-2) times.
"""

from __future__ import annotations

import numpy as np

from tw_rl.core.hexgrid import HexGrid
from tw_rl.core.state import RED, WHITE


def compute_sight(grid: HexGrid, owner: np.ndarray) -> np.ndarray:
    """[B, 2, N] int8: red (index 0) and white (index 1) stacks seen by each cell.

    ``owner`` is [B, N] int8 with EMPTY / RED / WHITE / NEUTRAL codes. A stack on the cell
    itself does not block its own view.
    """
    batch, num = owner.shape
    width = grid.width
    owner_ext = np.zeros((batch, num + 1), dtype=np.int16)
    owner_ext[:, :num] = owner
    on_lines = owner_ext[:, grid.lines]  # [B, lines, width]; padding slots are empty
    occupied = on_lines != 0
    pos = np.arange(width, dtype=np.int16)
    # Occupied slots get code 4 * key + owner (owner in 1..3); empty slots 0, so a running
    # maximum keeps the nearest stack's owner in its low two bits.
    forward = np.maximum.accumulate(np.where(occupied, 4 * pos + on_lines, 0), axis=-1)
    backward = np.where(occupied, 4 * (width - pos) + on_lines, 0)[..., ::-1]
    backward = np.maximum.accumulate(backward, axis=-1)[..., ::-1]
    before = np.zeros_like(forward)
    before[..., 1:] = forward[..., :-1] & 3
    after = np.zeros_like(backward)
    after[..., :-1] = backward[..., 1:] & 3

    out = np.empty((batch, 2, num), dtype=np.int8)
    for k, colour in enumerate((RED, WHITE)):
        seen = ((before == colour).astype(np.int8) + (after == colour)).reshape(batch, -1)
        slot = grid.line_slot
        out[:, k] = seen[:, slot[0]] + seen[:, slot[1]] + seen[:, slot[2]]
    return out
