"""The referee's fault scoring against points worked out by hand (issue 16).

Every game here starts from a hand-analysed position of ``tests/rule_positions.py`` instead of a
drawn opening, and is played by two scripted programs (``tests/programs/scripted.py``) that
answer a fixed list of lines, so each fault kind of the referee (illegal, pass, garbage, crash,
timeout) is committed by either colour at a known position. The expected points come from the
CodeCup text, not from an engine:

    "Each player will receive a point for every cell of their territory. Furthermore, the player
    with the most cells gets a 200 point winning bonus and the losing player a 100 point bonus. A
    player that made an invalid move or ran out of time receives no points. Their opponent wins
    by default, and their score is computed as follows: 200 + winner territory + 0.9 * neutral
    area (rounded down)."

BIG (see tests/rule_positions.py): territories red 38, white 51, neutral 2 (F3, F6).
  red forfeits at once:            white 200 + 51 + floor(1.8) = 252
after red F3: red 39, white 51, neutral 1 (F6):
  white forfeits:                  red 200 + 39 + floor(0.9) = 239
after red F3, white J9: red's simulation: white fills F10, takes I6 and F6; red fills A1 B2 C5
  E7 and takes D8: 35 - I6 + 5 = 39. White's: red fills A1 B2 C5 E7, takes D8 and F6; white
  fills F10 and takes I6: 50 - D8 + 2 = 51. Neutral: F6.
  red forfeits:                    white 200 + 51 + floor(0.9) = 251
after red F3, white F6: 39 + 52 = 91 cells: the end rule ends the game: red 39 + 100 = 139,
  white 52 + 200 = 252.
FULL (every cell a 6-stack, red 46, white 45): red has no placement, so a pass is legal and
  ends the game (both territories cover the board): 246 : 145. If red crashes instead:
  white 200 + 45 + floor(0.9 * 0) = 245.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from helpers import make_position
from rule_positions import BIG, FULL, Pos

from tw_rl.core.rules import Rules
from tw_rl.core.state import RED, WHITE

# The referee is being split into tw_rl/referee/{process,game,match}.py: import it from where it is.
try:
    from tw_rl.referee.game import play_game
    from tw_rl.referee.process import Program
except ImportError:  # the one-module referee
    from tw_rl.referee import Program, play_game

SCRIPTED = Path(__file__).resolve().parents[1] / "programs" / "scripted.py"


class PreparedStart(Rules):
    """CodeCup rules whose games start from a given position (red to move), not a drawn opening."""

    def __init__(self, pos: Pos) -> None:
        super().__init__(pos.size, "codecup")
        stacks = " ".join(f"{name}:{token}" for name, token in pos.cells().items())
        object.__setattr__(self, "prepared", make_position(Rules(pos.size, "codecup"), stacks))

    def start(self, red, white):
        return self.prepared.copy()


def scripted(name: str, answers: list[str]) -> Program:
    return Program.parse(name, shlex.join([sys.executable, str(SCRIPTED), *answers]))


# (id, position, red's answers, white's answers, fault (kind, colour, ply) or None, points, winner, end)
ROWS = [
    ("red-illegal-unseen", BIG, ["J9"], [], ("illegal", RED, 0), (0, 252), WHITE, "fault"),
    ("red-illegal-offboard", BIG, ["L1"], [], ("illegal", RED, 0), (0, 252), WHITE, "fault"),
    ("red-illegal-suicide", BIG, ["F10"], [], ("illegal", RED, 0), (0, 252), WHITE, "fault"),
    ("red-pass", BIG, ["Pass"], [], ("pass", RED, 0), (0, 252), WHITE, "fault"),
    ("red-garbage", BIG, ["hello"], [], ("garbage", RED, 0), (0, 252), WHITE, "fault"),
    ("red-crash", BIG, ["@crash"], [], ("crash", RED, 0), (0, 252), WHITE, "fault"),
    ("red-timeout", BIG, ["@sleep"], [], ("timeout", RED, 0), (0, 252), WHITE, "fault"),
    ("white-illegal-suicide", BIG, ["F3"], ["A1"], ("illegal", WHITE, 1), (239, 0), RED, "fault"),
    ("white-illegal-unseen", BIG, ["F3"], ["C5"], ("illegal", WHITE, 1), (239, 0), RED, "fault"),
    ("white-pass", BIG, ["F3"], ["Pass"], ("pass", WHITE, 1), (239, 0), RED, "fault"),
    ("white-garbage", BIG, ["F3"], [""], ("garbage", WHITE, 1), (239, 0), RED, "fault"),
    ("white-crash", BIG, ["F3"], ["@crash"], ("crash", WHITE, 1), (239, 0), RED, "fault"),
    ("white-timeout", BIG, ["F3"], ["@sleep"], ("timeout", WHITE, 1), (239, 0), RED, "fault"),
    ("red-illegal-later", BIG, ["F3", "J9"], ["J9"], ("illegal", RED, 2), (0, 251), WHITE, "fault"),
    ("end-rule", BIG, ["F3", "@sleep"], ["F6"], None, (139, 252), WHITE, "end rule"),
    ("stuck-red-passes", FULL, ["Pass"], [], None, (246, 145), RED, "end rule"),
    ("stuck-red-crashes", FULL, ["@crash"], [], ("crash", RED, 0), (0, 245), WHITE, "fault"),
]


@pytest.mark.parametrize(
    "position,red_answers,white_answers,fault,points,winner,end",
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_fault_scoring(position, red_answers, white_answers, fault, points, winner, end):
    rules = PreparedStart(position)
    timeout_row = "@sleep" in red_answers[:1] + white_answers[:1]
    result = play_game(
        rules,
        scripted("A", red_answers),
        scripted("B", white_answers),
        0,  # start cells: only sent to the programs, which ignore them
        1,
        time_limit=1.5 if timeout_row else 10.0,
    )
    got_fault = None if result.fault is None else (result.fault.kind, result.fault.colour, result.fault.ply)
    assert got_fault == fault, result.fault
    assert result.points == points
    assert result.winner == winner
    assert result.end == end
    # The offending answer is not a move; without a fault the game ended on the last answer given.
    plies = fault[2] if fault else sum(1 for a in red_answers + white_answers if not a.startswith("@"))
    assert len(result.moves) == plies
