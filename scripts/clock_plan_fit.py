"""How well the clock's counters forecast the own moves a player has left, on a match's games.

    tw-rl referee "./bot" "./bot" --games 100 --out m     # any referee match on the 6-board
    python scripts/clock_plan_fit.py m                    # one line per counter

The bot's clock (``tw_rl.codecup.clock.expected_own_moves``, ``clock.hpp``) divides the time
left by the own moves it expects from the empty cells. This replays every game of the results
folders (``game-*.txt``: the two starts, then one move a line) and fits, by least squares over
every position, the own moves the side to move made from there to the end against the empty
cells, against the undecided cells (outside both territory simulations), and against both;
for each, the fit, its root mean square error in moves and the correlation, beside the clock's
own plan at the default ``--per-empty``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from tw_rl.codecup.clock import expected_own_moves
from tw_rl.codecup.rules import Board, Position


def positions_of(game: Path, board: Board) -> list[tuple[int, int, int, float]]:
    """(side to move, empty cells, undecided cells, the clock's plan) at each position of a game."""
    lines = [line.strip() for line in game.read_text().splitlines() if line.strip()]
    if len(lines) < 2:
        raise ValueError(f"{game}: not a game (fewer than two lines)")
    position = Position.start(board, board.parse(lines[0]), board.parse(lines[1]))
    out = []
    for move in lines[2:]:
        if position.over:
            break
        red, white = position.territory_bits()
        stacks = position.stacks()
        empty = board.num_cells - (stacks[0] | stacks[1] | stacks[2]).bit_count()
        undecided = board.num_cells - (red | white).bit_count()
        out.append((position.to_move, empty, undecided, expected_own_moves(position)))
        position.play(board.num_cells if move.lower() == "pass" else board.parse(move))
    return out


def table(folders: list[Path]) -> np.ndarray:
    """Rows (empty, undecided, plan, own moves left) over every position of every game."""
    board = Board(6)
    rows = []
    for folder in folders:
        games = sorted(folder.glob("game-*.txt"))
        if not games:
            raise ValueError(f"{folder}: no game-*.txt (a results folder of tw-rl referee?)")
        for game in games:
            seq = positions_of(game, board)
            for k, (side, empty, undecided, plan) in enumerate(seq):
                left = sum(1 for later in seq[k:] if later[0] == side)
                rows.append((empty, undecided, plan, left))
    return np.array(rows, dtype=float)


def fit(columns: np.ndarray, left: np.ndarray) -> tuple[np.ndarray, float]:
    """Least-squares coefficients (the columns', then the constant) and the error in moves."""
    design = np.c_[columns, np.ones(len(left))]
    coef, *_ = np.linalg.lstsq(design, left, rcond=None)
    return coef, float(np.sqrt(np.mean((design @ coef - left) ** 2)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="results folders of tw-rl referee")
    args = parser.parse_args(argv)
    try:
        rows = table(args.folders)
    except (OSError, ValueError) as err:
        print(f"clock_plan_fit: {err}", file=sys.stderr)
        return 2
    empty, undecided, plan, left = rows.T
    print(f"{len(rows)} positions; own moves left: mean {left.mean():.1f}")
    for name, x in (("empty", empty), ("undecided", undecided)):
        (a, b), error = fit(x[:, None], left)
        print(
            f"{name:9s}: left = {a:.3f} {name} {b:+.1f}, error {error:.1f} moves, "
            f"correlation {np.corrcoef(x, left)[0, 1]:.2f}"
        )
    (a, b, c), error = fit(np.c_[empty, undecided], left)
    print(f"both     : left = {a:.3f} empty {b:+.3f} undecided {c:+.1f}, error {error:.1f} moves")
    plan_error = float(np.sqrt(np.mean((plan - left) ** 2)))
    print(f"the plan : {plan.mean():.1f} expected against {left.mean():.1f}, error {plan_error:.1f} moves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
