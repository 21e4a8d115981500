"""scripts/clock_plan_fit.py: the own moves left at each position of a match's games, and a
folder without games refused in one line."""

from __future__ import annotations

import random
import runpy
from pathlib import Path

import pytest

from tw_rl.codecup.rules import Board, Position

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "clock_plan_fit.py"


@pytest.fixture(scope="module")
def script():
    return runpy.run_path(str(SCRIPT), run_name="not_main")


def write_game(folder: Path, seed: int) -> int:
    """A random game in the referee's game-*.txt form; its number of plies."""
    board, rng = Board(6), random.Random(seed)
    position = Position.start(board, board.parse("G4"), board.parse("J6"))
    lines = ["G4", "J6"]
    while not position.over:
        move = rng.choice(sorted(position.legal_moves()))
        lines.append("pass" if move == board.num_cells else board.name(move))
        position.play(move)
    (folder / f"game-{seed:05d}.txt").write_text("\n".join(lines) + "\n")
    return len(lines) - 2


def test_the_moves_left_count_down_to_one_for_each_side(script, tmp_path):
    plies = write_game(tmp_path, 1)
    rows = script["table"]([tmp_path])
    empty, _, _, left = rows.T
    assert len(rows) == plies
    assert left[0] == (plies + 1) // 2 and sorted(left[-2:]) == [1, 1]  # red moves first
    assert (empty[1:] <= empty[:-1]).all()  # a placement never empties a cell


def test_a_folder_without_games_is_one_line(script, tmp_path, capsys):
    assert script["main"]([str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0
