"""From the numpy engine to the scalar one: a ``tw_rl.codecup.rules.Position`` from array rows.

The one conversion from batched arrays (``tw_rl.core.state.State``, self-play samples) to the
standard-library engine the CodeCup bot plays on, for the export's parity checks and the
rating's players. It sits above ``tw_rl.core`` and ``tw_rl.codecup`` and imports nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable

from tw_rl.codecup.rules import Board, Position
from tw_rl.core.state import State


def scalar_position(
    board: Board,
    owner: Iterable[int],
    height: Iterable[int],
    to_move: int,
    passes: int = 0,
    ply: int = 0,
    last_move: int | None = None,
    variant: str = "codecup",
    stale_end: bool = False,
    quiet: int = 0,
) -> Position:
    """A Position with these stacks, side to move and pass count (numpy rows or lists)."""
    position = Position(board, variant, stale_end)
    position.quiet = int(quiet)
    position.owner = [int(x) for x in owner]
    position.height = [int(x) for x in height]
    position.to_move = int(to_move)
    position.passes = int(passes)
    position.ply = int(ply)
    position.last_move = None if last_move is None or last_move < 0 else int(last_move)
    return position


def state_position(
    board: Board, state: State, game: int, variant: str = "codecup", stale_end: bool = False
) -> Position:
    """Game ``game`` of a batched State (in play) as a Position of ``variant`` (its ply and last
    move too)."""
    return scalar_position(
        board,
        state.owner[game],
        state.height[game],
        state.to_move[game],
        state.passes[game],
        state.ply[game],
        int(state.last_move[game]),
        variant,
        stale_end,
        int(state.quiet[game]),
    )
