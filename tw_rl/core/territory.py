"""The CodeCup territory simulation, batched, and the rewards derived from it.

Red's territory: white plays every CodeCup-legal (non-suicidal) placement until it has none,
then red does the same; the cells holding red stacks at the end are red's. White's is the
mirror image. A placement only adds the mover's stack, which can only raise the mover's sight
and lower the other side's, so a legal placement stays legal until it is played and every
order reaches the same end. Playing *all* legal placements of a side at once (heights from the
position before the batch) and repeating is therefore exact, and takes a handful of rounds.
Both simulations of every board run as one batch of 2B boards; boards that have nothing left
to play leave the batch, so late rounds cost only what is still changing.
"""

from __future__ import annotations

import numpy as np

from tw_rl.core.hexgrid import HexGrid
from tw_rl.core.sight import compute_sight
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
    """[B, 2, N] bool: red's (index 0) and white's (index 1) simulated territory."""
    batch, num = owner.shape
    if sight is None:
        sight = compute_sight(grid, owner)
    own = np.concatenate([owner, owner])
    hgt = np.concatenate([height, height])
    seen = np.concatenate([sight, sight])
    target = np.repeat(np.array([RED, WHITE], dtype=np.int8), batch)
    mover = (3 - target).astype(np.int8)  # the opponent fills first
    rows = np.arange(2 * batch)  # the global board each active row belongs to
    result = np.zeros((2 * batch, num), dtype=bool)

    while rows.size:
        local = np.arange(rows.size)
        me = (mover - 1).astype(np.intp)
        legal = fill_legal(seen[local, me], seen[local, 1 - me], hgt)
        stuck = ~legal.any(axis=1)
        # A board whose first filler is stuck hands over to the territory's owner.
        handover = stuck & (mover != target)
        if handover.any():
            mover[handover] = target[handover]
            me = (mover - 1).astype(np.intp)
            legal[handover] = fill_legal(
                seen[handover, me[handover]], seen[handover, 1 - me[handover]], hgt[handover]
            )
            stuck = ~legal.any(axis=1)
        if stuck.any():
            result[rows[stuck]] = own[stuck] == target[stuck, None]
            keep = ~stuck
            rows, own, hgt, seen = rows[keep], own[keep], hgt[keep], seen[keep]
            target, mover, legal, me = target[keep], mover[keep], legal[keep], me[keep]
            if not rows.size:
                break
        local = np.arange(rows.size)
        own = np.where(legal, mover[:, None], own)
        hgt = np.where(legal, seen[local, me], hgt)
        seen = compute_sight(grid, own)

    return result.reshape(2, batch, num).transpose(1, 0, 2)


def territory_margin(territory: np.ndarray) -> np.ndarray:
    """[B] float32: (red cells - white cells) / N, the shaped-reward potential for red."""
    counts = territory.sum(axis=2, dtype=np.int32)
    return ((counts[:, 0] - counts[:, 1]) / territory.shape[2]).astype(np.float32)
