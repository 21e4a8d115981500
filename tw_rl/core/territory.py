"""The CodeCup territory simulation, batched, and the rewards derived from it.

Red's territory: white plays every CodeCup-legal (non-suicidal) placement until it has none,
then red does the same; the cells holding red stacks at the end are red's. White's is the
mirror image. A placement only adds the mover's stack, which can only raise the mover's sight
and lower the other side's, so a legal placement stays legal until it is played and every
order reaches the same end. Playing *all* legal placements of a side at once (heights from the
position before the batch) and repeating is therefore exact, and takes a handful of rounds.
Both simulations of every board run as one batch of 2B boards; boards that have nothing left
to play leave the batch, so late rounds cost only what is still changing.

``simulate_territory`` takes the compiled kernel (``tw_rl.core.kernel``) when it is available
and ``TW_RL_KERNEL`` allows it; ``simulate_territory_numpy`` is the numpy reference it is tested
equal to, and what every machine without a C compiler runs.
"""

from __future__ import annotations

import numpy as np

from tw_rl.core import kernel
from tw_rl.core.hexgrid import HexGrid
from tw_rl.core.sight import WHITE_SHIFT, compute_sight_numpy, packed_sight
from tw_rl.core.state import RED, WHITE


def fill_legal(sight_me: np.ndarray, sight_other: np.ndarray, height: np.ndarray) -> np.ndarray:
    """Non-suicidal placement mask: sees a friendly stack, beats the height, cannot be retaken."""
    return (sight_me >= 1) & (sight_me > height) & (sight_other <= sight_me)


def simulate_territory(
    grid: HexGrid,
    owner: np.ndarray,
    height: np.ndarray,
    sight: np.ndarray | None = None,
) -> np.ndarray:
    """[B, 2, N] bool: red's (index 0) and white's (index 1) simulated territory.

    Compiled when available (``tw_rl.core.kernel``), else the numpy reference; ``sight``
    ([B, 2, N], optional) saves the numpy path its first sight computation.
    """
    if kernel.use_compiled():
        return kernel.compiled_territory(grid, owner, height)
    return simulate_territory_numpy(grid, owner, height, sight)


def sight_and_territory(
    grid: HexGrid, owner: np.ndarray, height: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(``compute_sight``, ``simulate_territory``) of the same positions, in one pass when
    compiled (the simulation starts from the position's sight)."""
    if kernel.use_compiled():
        return kernel.compiled_sight_and_territory(grid, owner, height)
    sight = compute_sight_numpy(grid, owner)
    return sight, simulate_territory_numpy(grid, owner, height, sight)


def simulate_territory_numpy(
    grid: HexGrid,
    owner: np.ndarray,
    height: np.ndarray,
    sight: np.ndarray | None = None,
) -> np.ndarray:
    """The numpy reference of ``simulate_territory`` (same arguments and result)."""
    batch, num = owner.shape
    # Cell-major copies of both simulations side by side: columns [0, B) for red's, [B, 2B)
    # for white's territory. Sight stays packed (red + 8 * white) throughout.
    own = np.ascontiguousarray(np.concatenate([owner, owner]).T, dtype=np.int8)
    hgt = np.ascontiguousarray(np.concatenate([height, height]).T, dtype=np.int8)
    if sight is None:
        seen = packed_sight(grid, own)
    else:
        packed = sight[:, 0] + (sight[:, 1] << WHITE_SHIFT)
        seen = np.ascontiguousarray(np.concatenate([packed, packed]).T, dtype=np.int8)
    target = np.repeat(np.array([RED, WHITE], dtype=np.int8), batch)
    mover = (3 - target).astype(np.int8)  # the opponent fills first
    cols = np.arange(2 * batch)  # the simulation each active column belongs to
    result = np.zeros((num, 2 * batch), dtype=bool)

    def legal_fill(seen, hgt, mover):
        shift = np.where(mover == RED, 0, WHITE_SHIFT).astype(np.int8)
        s_me = (seen >> shift) & 7
        s_other = (seen >> (WHITE_SHIFT - shift)) & 7
        return fill_legal(s_me, s_other, hgt), s_me

    while cols.size:
        legal, s_me = legal_fill(seen, hgt, mover)
        stuck = ~legal.any(axis=0)
        # A simulation whose first filler is stuck hands over to the territory's owner.
        handover = stuck & (mover != target)
        if handover.any():
            mover[handover] = target[handover]
            legal[:, handover], s_me[:, handover] = legal_fill(
                seen[:, handover], hgt[:, handover], mover[handover]
            )
            stuck = ~legal.any(axis=0)
        if stuck.any():
            result[:, cols[stuck]] = own[:, stuck] == target[stuck]
            keep = ~stuck
            cols, target, mover = cols[keep], target[keep], mover[keep]
            own, hgt, legal, s_me = own[:, keep], hgt[:, keep], legal[:, keep], s_me[:, keep]
            if not cols.size:
                break
        own = np.where(legal, mover, own)
        hgt = np.where(legal, s_me, hgt)
        seen = packed_sight(grid, own)

    return result.T.reshape(2, batch, num).transpose(1, 0, 2)


def territory_margin(territory: np.ndarray) -> np.ndarray:
    """[B] float32: (red cells - white cells) / N, the shaped-reward potential for red."""
    counts = territory.sum(axis=2, dtype=np.int32)
    return ((counts[:, 0] - counts[:, 1]) / territory.shape[2]).astype(np.float32)
