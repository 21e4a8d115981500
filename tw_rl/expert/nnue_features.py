"""The native network's sparse inputs computed in Python, from ``tw_rl.codecup.rules``: the
twin of ``tw_rl/native/src/nnue_features.hpp`` (tests compare the two on positions of real
games), and the inputs of a shard's samples for training.

Per cell four active rows, seen from the side to move; row = cell * 47 + the group's offset +
its code (``tw_rl.native.nnue_file.GROUPS``):

- content (14): 0 empty, 1-6 an own stack of that height, 7-12 the opponent's, 13 neutral;
- sight (25): min(own sight, 4) * 5 + min(the opponent's sight, 4);
- legal (4): 2 if the side to move may place on the cell, + 1 if the opponent may;
- territory (4): 2 if the cell ends in the side to move's simulated territory, + 1 if in the
  opponent's (the CodeCup territory simulation of ``rules.territory_bits``).

Why these: the content and the sight pair are what the rules act on (a placement's height is
the mover's sight; a stack falls to a larger sight), legality is the comparison of the two, and
the simulated territory is the score if both sides filled what they can; each is position-
specific (its own row per cell), so the first layer learns what a corner or the centre is worth.
"""

from __future__ import annotations

import numpy as np

from tw_rl.codecup.rules import RED, Board, Position, count_at
from tw_rl.native.nnue_file import GROUPS, PER_CELL

SIGHT_AT = GROUPS[0][1]
LEGAL_AT = SIGHT_AT + GROUPS[1][1]
TERRITORY_AT = LEGAL_AT + GROUPS[2][1]
ACTIVE_PER_CELL = len(GROUPS)


def position_rows(pos: Position) -> list[int]:
    """The active input rows of a position, cell by cell, the four groups in order."""
    board = pos.board
    me = pos.to_move
    red, white, neutral, heights = pos.stacks()
    rc, wc = pos.counts()
    tr, tw = pos.territory_bits()
    mine, theirs = (red, white) if me == RED else (white, red)
    my_sight, their_sight = (rc, wc) if me == RED else (wc, rc)
    my_land, their_land = (tr, tw) if me == RED else (tw, tr)
    my_legal, their_legal = pos.legal_bits(me), pos.legal_bits(3 - me)
    rows = []
    for cell, bit in enumerate(board.bits):
        height = min(max(count_at(heights, bit), 1), 6)
        if mine & bit:
            content = height
        elif theirs & bit:
            content = 6 + height
        elif neutral & bit:
            content = 13
        else:
            content = 0
        sight = min(count_at(my_sight, bit), 4) * 5 + min(count_at(their_sight, bit), 4)
        legal = (2 if my_legal & bit else 0) + (1 if their_legal & bit else 0)
        land = (2 if my_land & bit else 0) + (1 if their_land & bit else 0)
        base = cell * PER_CELL
        rows += [base + content, base + SIGHT_AT + sight, base + LEGAL_AT + legal, base + TERRITORY_AT + land]
    return rows


def position_of(board: Board, owner, height, to_move: int, passes: int) -> Position:
    """The position of a shard sample (owner and height per cell, the side to move, passes)."""
    pos = Position(board)
    pos.owner = [int(x) for x in owner]
    pos.height = [int(x) for x in height]
    pos.to_move = int(to_move)
    pos.passes = int(passes)
    return pos


def samples_rows(
    owner: np.ndarray, height: np.ndarray, to_move: np.ndarray, passes: np.ndarray
) -> np.ndarray:
    """int16 [B, 4 * cells]: the active rows of a batch of shard samples."""
    cells = owner.shape[1]
    size = {91: 6, 169: 8, 271: 10, 331: 11}[cells]
    board = Board(size)
    out = np.empty((len(owner), ACTIVE_PER_CELL * cells), dtype=np.int16)
    for k in range(len(owner)):
        out[k] = position_rows(position_of(board, owner[k], height[k], to_move[k], passes[k]))
    return out


def my_legal_mask(rows: np.ndarray) -> np.ndarray:
    """bool [B, cells]: where the side to move may place, read off the active rows."""
    cells = rows.shape[1] // ACTIVE_PER_CELL
    legal = rows[:, 2::ACTIVE_PER_CELL].astype(np.int64) - (np.arange(cells) * PER_CELL + LEGAL_AT)
    return legal >= 2
