# ruff: noqa: E501  (quoted sentences and table rows stay on one line)
"""Rule tables computed by hand from the documents, run against every engine (issue 16).

The other rule tests mostly compare the two engines with each other, so a misreading that both
share passes them. Every expected value here was worked out by hand from the source documents
(``/work/shared/rules``: the CodeCup rules and protocol, the official rulebook, the wiki overview,
the Board Game Arena page) and from ``docs/rules.md`` where the documents leave a gap.
No engine code computes an expectation: cell names, neighbours and board sizes below come from
the "diff" reading of docs/rules.md, written out by hand.

Each row cites the sentence it checks: ``CC:`` the CodeCup text, ``RB:`` the rulebook, ``WK:``
the wiki overview, ``BGA:`` the BGA page, ``RM:`` docs/rules.md, followed by a phrase quoted from
that file (``test_citations_are_verbatim`` checks the quotes).

Engines are reached through one small adapter each (``NumpyEngine``: ``tw_rl.core.rules.Rules``
on its numpy reference path, ``CompiledEngine``: the same with the compiled kernel of
``tw_rl.core.kernel``; ``ScalarEngine``: ``tw_rl.codecup.rules.Position``); a further engine
needs one more adapter in ``ENGINES`` and nothing else. The positions, with how their territories were worked out, are
in ``tests/rule_positions.py`` (shared with ``tests/referee/test_fault_scoring_table.py``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from rule_positions import (
    BIG,
    BIG8,
    BIG_SWAPPED,
    DRAWN,
    FULL,
    NO_STACKS,
    NOT_TALLER,
    OPEN_CENTRE,
    OTHER,
    REINFORCE,
    SIX,
    SPARSE,
    SPARSE8,
    START,
    SUICIDE,
    SUICIDE_SWAPPED,
    TIES,
    Pos,
    all_cells,
)

RULES_DIR = Path(os.environ.get("TW_RULES_DIR", "/work/shared/rules"))

# --------------------------------------------------------------------------- citations
SEE = (
    "CC: A stack can see another stack when they are connected by a straight line without stacks in between."
)
BLOCK = "RB: anything blocking that line — friendly or enemy — stops it from seeing past that point"
OWN_VIEW = "RM: A stack on the cell itself does not block its own view."
DIFF = "RM: neighbour steps (+-1,0), (0,+-1), (+1,+1), (-1,-1)."
VALUE = "CC: its value is determined by how many other stacks of their colour it sees"
HEIGHT = "RB: the new stack's height equals the number of that player's own stacks that currently see the hex"
FRIEND = "CC: New stacks must see at least one friendly stack."
GREATER = "CC: if the new value is strictly greater than the stack's current value"
NO_TALLER = "RB: A move that would result in a stack no taller than the one it is replacing is not legal."
NEUTRAL_CAPTURE = 'WK: This works with both opponent or neutral stacks ("capturing")'
NO_SUICIDE = "CC: We forbid moves where the opponent can immediately (re-)capture the last played stack."
OFFICIAL_SUICIDE = "CC: the official rules allow for suicidal moves"
PASS_CC = "CC: If a player cannot place a stack, they should send"
PASS_RB = "RB: A player who has no legal move, or who simply chooses not to extend their position, may pass"
SIM_WHITE_FIRST = (
    "CC: the judging software first plays all available moves for white until there are no white moves left"
)
SIM_RED_NEXT = (
    "CC: Then it plays all available moves for red to fill the board and capture dead white stacks."
)
SIM_CELLS = "CC: The cells with red stacks after this simulation belong to reds territory."
SIM_SYMMETRIC = "CC: The calculation of white territory is done symmetrically."
END_CC = "CC: If every cell is part of either red or white territory, the judging software will end the game."
END_RB = "RB: until neither player has any legal move left to make, or until both players pass their turn in succession"
TWO_PASSES_BGA = (
    "BGA: The game ends when no more moves can be made by either player, or after two successive passes."
)
POINTS = "CC: Each player will receive a point for every cell of their territory."
BONUS = "CC: the player with the most cells gets a 200 point winning bonus and the losing player a 100 point bonus"
DRAW = "RM: equal counts: a draw, 100 each unless the documents say otherwise"
INVALID = "CC: When a player plays an invalid move, for example playing outside the board or in a cell that cannot see a friendly stack, the game ends immediately."
TIMEOUT = "CC: If a player exceeds their time limit of 30 seconds, they will be terminated immediately."
NO_POINTS = "CC: A player that made an invalid move or ran out of time receives no points."
FORFEIT = "CC: 200 + winner territory + 0.9 * neutral area (rounded down)"
NEUTRAL_AREA = "CC: The neutral area is the area that does not belong to either player's territory."
OFFICIAL_SCORE = "RB: each player's score is the number of hexes they occupy or control"
CONTROL = "WK: A cell is controlled by a player if it is empty and it \"sees\" more player's stacks than the opponent's."
MORE_THAN_HALF = "RB: The player who occupies or controls more than half the board wins."
MORE_THAN_OPPONENT = "WK: The objective of the game is to have more owned and controlled cells (in total) on the board than the opponent"

# ------------------------------------------------------------------------------ tables
# (position, cell, red sight, white sight, citation). Each ray is listed from the cell outwards.
SIGHT_ROWS = [
    # C5: up C6 C7(w); down C4 C3(r); east D5 E5(r); west B5 A5 -; NE D6..I11 -; SW B4 A3 -.
    (SPARSE, "C5", 2, 1, SEE),
    # E7: up E8-E10 -; down E6 E5(r); east F7..K7 -; west D7 C7(w); NE F8..I11 -; SW D6..A3 -.
    (SPARSE, "E7", 1, 1, SEE),
    # F8: up F9(r); down F7 F6(n); east G8 H8(w); west E8 D8(w); NE G9..I11 -; SW E7..A3 -.
    (SPARSE, "F8", 1, 2, SEE),
    # The neutral centre sees F9 (up), I6 (east), E5 (SW) red and H8 (NE) white.
    (SPARSE, "F6", 3, 1, OWN_VIEW),
    # D8 itself a white stack: E8 F8 G8 H8(w) east, C7(w) SW; up D9 is the edge.
    (SPARSE, "D8", 0, 2, OWN_VIEW),
    # G9: west F9(r); everything else runs to the edge.
    (SPARSE, "G9", 1, 0, SEE),
    # H6: up H7 H8(w); east I6(r); west G6 F6(n) blocks E6..A6.
    (SPARSE, "H6", 1, 1, BLOCK),
    (SPARSE, "B2", 1, 0, DIFF),  # NE: C3(r)
    (SPARSE, "C6", 2, 1, SEE),  # up C7(w); down C5 C4 C3(r); east D6 E6 F6(n); NE D7 E8 F9(r)
    (SPARSE, "B4", 0, 0, SEE),  # all six rays run to the edge without a stack
    (SPARSE, "D7", 1, 2, SEE),  # up D8(w); west C7(w); NE E8 F9(r)
    (SPARSE, "E6", 1, 0, BLOCK),  # down E5(r); east F6(n)
    (SIX, "C4", 6, 0, DIFF),  # C5 C3 D4 B4 D5 B3 all red; D3 and B5 (white) are not on its rays
    (SIX, "B4", 3, 1, OWN_VIEW),  # the red stack B4 sees B3 (down), D4 (east, past C4), C5 (NE); B5(w)
    # Open centre: A1 sees F1 along row 1 and K11 along the whole diagonal (11 cells).
    (OPEN_CENTRE, "A1", 1, 1, SEE),
    (OPEN_CENTRE, "K11", 2, 1, SEE),  # SW diagonal A1(r); down K10..K6(r); west J11..F11(w)
    (OPEN_CENTRE, "F1", 2, 1, SEE),  # up F2..F11(w); west E1..A1(r); NE G2..K6(r)
    (OPEN_CENTRE, "F6", 3, 3, SEE),  # F1 K6 A1 red, F11 A6 K11 white: each ray to the far edge
    (START, "C4", 1, 0, SEE),
    (SUICIDE, "E5", 1, 2, SEE),  # SW D4 C3(r); down E4 E3(w); west D5 C5(w); NE F6(n)
    (SUICIDE, "C3", 0, 2, OWN_VIEW),  # up C4 C5(w); east D3 E3(w)
    # Full board: a hole sees its six neighbours.
    (BIG, "A1", 2, 1, BLOCK),  # up A2(r); east B1(w); NE B2 (hole) then C3(r)
    (BIG, "B2", 3, 2, BLOCK),  # C2 A2 C3 red; B3 B1 white; SW A1 (hole) then the edge
    (BIG, "F3", 3, 3, SEE),
    (BIG, "E7", 4, 2, SEE),
    (BIG, "F10", 2, 4, SEE),
    (BIG, "D2", 3, 3, SEE),
    (BIG, "F6", 3, 3, SEE),
    (TIES, "A3", 2, 2, BLOCK),  # down A2 (hole) then A1(r); up A4(r); east B3(w); NE B4(w)
    (TIES, "A2", 3, 1, BLOCK),  # down A1(r); up A3 (hole) then A4(r); east B2(r); NE B3(w)
    # The 8-board: columns A..O, a cell iff |c - r| <= 7.
    (SPARSE8, "H5", 0, 1, BLOCK),  # up H6 H7 H8(n); down H4 H3 H2(w); east I5..L5 -
    (SPARSE8, "B8", 2, 0, SEE),  # down B7..B2(r); NE C9 D10 E11 F12 G13 H14(r); up B9 then edge
    (SPARSE8, "H15", 1, 0, SEE),  # down H14(r); east I15..O15 all empty; SW G14..A8 empty
    (SPARSE8, "N8", 1, 2, SEE),  # east O8(r); up N9..N14(w); SW M7 L6 K5 J4 I3 H2(w)
    (BIG8, "H3", 3, 3, SEE),
    (BIG8, "H8", 3, 3, SEE),
]

# (position, variant, to move, every legal action of the side to move, citation)
LEGAL_ROWS = [
    # START: C3 sees C4-C8, C2 C1, D3-H3, B3 A3, D4 E5 (F6 blocks), B2 A1: 18 cells, none seen by white.
    (START, "codecup", "red", "C4 C5 C6 C7 C8 C2 C1 D3 E3 F3 G3 H3 B3 A3 D4 E5 B2 A1", FRIEND),
    (START, "official", "red", "C4 C5 C6 C7 C8 C2 C1 D3 E3 F3 G3 H3 B3 A3 D4 E5 B2 A1 Pass", PASS_RB),
    # I9 sees I10 I11, I8-I4, J9 K9, H9-D9, J10 K11, H8 G7 (F6 blocks).
    (START, "codecup", "white", "I10 I11 I8 I7 I6 I5 I4 J9 K9 H9 G9 F9 E9 D9 J10 K11 H8 G7", FRIEND),
    # SUICIDE: C5 and E3 (white) stop red's C3 rays; E5 sees 1 red and 2 white: suicidal.
    (SUICIDE, "codecup", "red", "C4 C2 C1 D3 B3 A3 D4 B2 A1", NO_SUICIDE),
    (SUICIDE, "official", "red", "C4 C2 C1 D3 B3 A3 D4 B2 A1 E5 Pass", OFFICIAL_SUICIDE),
    (SUICIDE_SWAPPED, "codecup", "white", "C4 C2 C1 D3 B3 A3 D4 B2 A1", NO_SUICIDE),
    (SUICIDE_SWAPPED, "official", "white", "C4 C2 C1 D3 B3 A3 D4 B2 A1 E5 Pass", OFFICIAL_SUICIDE),
    # BIG: holes A1 B2 C5 E7 (red > white), F3 (3:3), the capture of D8 (w1, red sees 6) and of F6
    # (n2, red sees 3, white 3: not suicide). F10 is suicidal for red; J9 and I6 unseen by red;
    # D2 (w3) seen by only 3 red.
    (BIG, "codecup", "red", "A1 B2 C5 E7 F3 D8 F6", NO_SUICIDE),
    (BIG, "official", "red", "A1 B2 C5 E7 F3 D8 F6 F10 Pass", OFFICIAL_SUICIDE),
    (BIG, "codecup", "white", "F3 J9 F10 I6 F6", NO_SUICIDE),
    (BIG, "official", "white", "F3 J9 F10 I6 F6 A1 B2 E7 Pass", OFFICIAL_SUICIDE),
    (BIG_SWAPPED, "codecup", "white", "A1 B2 C5 E7 F3 D8 F6", SIM_SYMMETRIC),
    (BIG_SWAPPED, "codecup", "red", "F3 J9 F10 I6 F6", SIM_SYMMETRIC),
    (TIES, "codecup", "red", "A2 A3 F6", NO_SUICIDE),
    (TIES, "codecup", "white", "A3 F6", NO_SUICIDE),  # A2: white 1 < red 3
    (TIES, "official", "white", "A2 A3 F6 Pass", OFFICIAL_SUICIDE),
    (BIG8, "codecup", "red", "B2 D5 H3 H8", GREATER),
    (BIG8, "codecup", "white", "H3 H8", GREATER),
    (BIG8, "official", "white", "H3 H8 Pass", PASS_RB),
    # Nobody can place: the pass is the only move (CodeCup: only then).
    (NO_STACKS, "codecup", "red", "Pass", PASS_CC),
    (NO_STACKS, "codecup", "white", "Pass", PASS_CC),
    (FULL, "codecup", "red", "Pass", PASS_CC),
    (FULL, "official", "white", "Pass", PASS_RB),
]

# (position, variant, to move, {cell: legal?}, citation): single cells of positions too open to
# list every move.
LEGAL_CELL_ROWS = [
    # White captures C3 (sees C5 and E3: 2 > 1; red sees nothing there); E5 is white's (2 >= 1).
    (SUICIDE, "codecup", "white", {"C3": True, "E5": True, "D3": True, "A3": True, "C1": True}, GREATER),
    (SUICIDE, "codecup", "white", {"B3": False, "A1": False, "C4": True}, FRIEND),
    (SUICIDE, "codecup", "red", {"C5": False, "E3": False, "F6": False}, NO_TALLER),  # sight 1, 1, 1
    # C3 sees only C5 (1, not > 1); A5 sees C5 (east, past B5) and C7 (NE, past B6): 2 > 1.
    (REINFORCE, "codecup", "red", {"C5": True, "C3": False, "A5": True}, GREATER),
    (NOT_TALLER, "codecup", "red", {"C5": False, "C4": True}, NO_TALLER),
    # F6: red sees 3 > 2. C7 (w1): red sees only C3 (1). D8, H8: red sees none.
    (SPARSE, "codecup", "red", {"F6": True, "C7": False, "D8": False, "H8": False}, NEUTRAL_CAPTURE),
    # F6: white sees 1. F9, E5 (red): white sees none. G8: H8 east, D8 west (2).
    (SPARSE, "codecup", "white", {"F6": False, "F9": False, "E5": False, "G8": True}, NO_TALLER),
    (SIX, "official", "red", {"C4": True, "D3": True, "B5": True}, GREATER),
    (SIX, "codecup", "red", {"D3": True, "B5": True}, NO_SUICIDE),  # each sees 2 red, 0 other white
]

# (position, variant, to move, move, resulting stack, citation)
PLACE_ROWS = [
    (REINFORCE, "codecup", "red", "C5", "r3", HEIGHT),  # C3 C7 A5 see C5: reinforced 1 -> 3
    (START, "codecup", "red", "E5", "r1", VALUE),
    (SUICIDE, "codecup", "white", "C3", "w2", GREATER),  # capture
    (SUICIDE, "codecup", "white", "E5", "w2", VALUE),
    (SUICIDE, "official", "red", "E5", "r1", OFFICIAL_SUICIDE),
    (SPARSE, "codecup", "red", "F6", "r3", NEUTRAL_CAPTURE),
    (SIX, "codecup", "red", "C4", "r6", VALUE),
    (BIG, "codecup", "red", "A1", "r2", VALUE),
    (BIG, "codecup", "red", "B2", "r3", VALUE),
    (BIG, "codecup", "red", "C5", "r6", VALUE),
    (BIG, "codecup", "red", "E7", "r4", VALUE),
    (BIG, "codecup", "red", "F3", "r3", VALUE),
    (BIG, "codecup", "red", "D8", "r6", SIM_RED_NEXT),
    (BIG, "codecup", "red", "F6", "r3", NEUTRAL_CAPTURE),
    (BIG, "official", "red", "F10", "r2", OFFICIAL_SUICIDE),
    (BIG, "codecup", "white", "F10", "w4", VALUE),
    (BIG, "codecup", "white", "I6", "w6", GREATER),
    (BIG, "official", "white", "A1", "w1", OFFICIAL_SUICIDE),
    (BIG8, "codecup", "red", "H8", "r3", NEUTRAL_CAPTURE),
    (BIG8, "codecup", "white", "H3", "w3", VALUE),
]

RED, WHITE, BOTH, NONE = "red", "white", "both", "none"

# (position, moves played first, red territory, white territory, {cell: whose}, citation).
# Counts and features worked out in the module docstring and beside each position.
TERRITORY_ROWS = [
    # BIG, red's simulation: white fills F3 J9 F10 I6 F6 (A1 B2 E7 would be suicide), then red
    # fills A1 B2 C5 E7 and captures D8: 34 - I6 + 5 = 38. White's: red fills A1 B2 C5 F3 E7 F6
    # and D8, then white J9 F10 and I6: 49 - D8 + 3 = 51. F3 and F6 in neither.
    (
        BIG,
        "",
        38,
        51,
        {"A1": RED, "B2": RED, "C5": RED, "E7": RED, "D8": RED, "F3": NONE, "F6": NONE}
        | {"J9": WHITE, "F10": WHITE, "I6": WHITE, "D2": WHITE, "E3": WHITE, "A2": RED, "K11": WHITE},
        SIM_WHITE_FIRST,
    ),
    (
        BIG_SWAPPED,
        "",
        51,
        38,
        {"A1": WHITE, "B2": WHITE, "D8": WHITE, "F3": NONE, "F6": NONE, "J9": RED, "I6": RED},
        SIM_SYMMETRIC,
    ),
    # After red F3 (r3): white still takes F6 first in red's simulation; F3 is red's.
    (BIG, "F3", 39, 51, {"F3": RED, "F6": NONE, "A1": RED}, SIM_CELLS),
    # Then white F6 (w3): nobody beats a 3 with 3; every cell is someone's: 39 + 52 = 91.
    (BIG, "F3 F6", 39, 52, {"F3": RED, "F6": WHITE, "D8": RED, "I6": WHITE}, END_CC),
    (DRAWN, "", 45, 45, {"C5": RED, "I7": WHITE, "F6": NONE}, SIM_SYMMETRIC),
    # Equal sight is not suicide, inside the simulation too: white fills A3, then A2 (see TIES).
    (TIES, "", 41, 47, {"A2": NONE, "A3": NONE, "F6": NONE, "A1": RED, "B3": WHITE}, SIM_WHITE_FIRST),
    (TIES, "A2", 42, 47, {"A2": RED, "A3": NONE}, SIM_RED_NEXT),  # A3 then sees A2: 2 : 2
    (FULL, "", 46, 45, {"F6": RED, "F7": WHITE}, SIM_CELLS),
    # The start: whoever fills first ends up seeing the other's single stack from two sides
    # and takes it, so neither side keeps a stack in the simulation run against it.
    (START, "", 0, 0, {"C3": NONE, "I9": NONE}, SIM_RED_NEXT),
    (NO_STACKS, "", 0, 0, {"F6": NONE}, SIM_CELLS),
    # BIG8: red's: white takes H3 and H8 (3:3), red fills B2 and takes D5: 80 + 2 = 82.
    # White's: red fills B2 H3, takes D5 and H8; white has nothing left: 86 - D5 = 85.
    (BIG8, "", 82, 85, {"B2": RED, "D5": RED, "H3": NONE, "H8": NONE, "G3": WHITE}, SIM_WHITE_FIRST),
]

# (position, variant, to move, moves, over after the moves?, points, winner, citation).
# points / winner None: not checked (the game goes on).
GAME_ROWS = [
    (BIG, "codecup", "red", "", False, None, None, END_CC),  # F3 and F6 are nobody's
    (BIG, "codecup", "red", "F3", False, None, None, END_CC),  # F6 is nobody's
    # Territories 39 : 52 cover the board: white has more cells.
    (BIG, "codecup", "red", "F3 F6", True, (139, 252), WHITE, BONUS),
    (BIG_SWAPPED, "codecup", "white", "F3 F6", True, (252, 139), RED, BONUS),
    # Nobody can move: red must pass, and after the pass both territories cover the board.
    (FULL, "codecup", "red", "Pass", True, (246, 145), RED, POINTS),
    # CodeCup: a pass, then another: two passes in a row end the game. (Only a position where
    # neither colour has a stack allows this: any red or white stack next to an empty cell
    # gives someone a placement, and a full board always lets someone take F6.)
    (NO_STACKS, "codecup", "red", "Pass", False, None, None, TWO_PASSES_BGA),
    (NO_STACKS, "codecup", "red", "Pass Pass", True, (100, 100), "draw", DRAW),
    # Official: two passes in a row; a placement in between starts the count again.
    (BIG, "official", "red", "Pass", False, None, None, END_RB),
    (BIG, "official", "red", "Pass J9 Pass", False, None, None, END_RB),
    # After white's J9: red owns 34 and controls A1 B2 C5 E7; white owns 50 and controls F10.
    (BIG, "official", "red", "Pass J9 Pass Pass", True, (38, 51), WHITE, MORE_THAN_HALF),
    # START: each side owns 1 stack and controls the 18 empty cells only it sees: 19 : 19.
    (START, "official", "red", "Pass Pass", True, (19, 19), "draw", CONTROL),
    (FULL, "official", "red", "Pass", True, (46, 45), RED, END_RB),  # nobody can move
    # Official, no stacks: after one pass neither side has a legal move left: over at once.
    (NO_STACKS, "official", "white", "Pass", True, (0, 0), "draw", END_RB),
    (BIG8, "official", "red", "Pass Pass", True, (81, 86), WHITE, MORE_THAN_HALF),  # B2 controlled
    (DRAWN, "official", "red", "Pass Pass", True, (45, 45), "draw", MORE_THAN_HALF),
    # SUICIDE, official: red owns C3 and controls C2 B3 D4 B2 A1 (6). White owns E3 C5 and sees
    # 21 + 21 empty cells (E5 G5 E7 twice): 39, of which C4 C1 D3 A3 are ties: 2 + 35 = 37.
    # Neither has more than half of 91 cells: the rulebook ("more than half the board wins")
    # names no winner, the wiki ("more ... than the opponent") names white. The engines follow
    # the wiki; the documents disagree (see the issue-16 note).
    (SUICIDE, "official", "red", "Pass Pass", True, (6, 37), WHITE, MORE_THAN_OPPONENT),
]

# (position, to move, moves before, offence, points, citation) under CodeCup rules.
# offence: a cell name (an illegal placement), "Pass" (a pass while a placement exists) or
# None (no move at all: the time-out / crash of the referee, whose offender is the side to move).
# BIG: territories 38 : 51 with 2 neutral cells (F3, F6): floor(0.9 * 2) = 1.
FORFEIT_ROWS = [
    (BIG, "red", "", "J9", (0, 252), INVALID),  # red sees nothing on J9
    (BIG, "red", "", "D2", (0, 252), NO_TALLER),  # 3 red stacks do not beat a 3-stack
    (BIG, "red", "", "F10", (0, 252), NO_SUICIDE),
    (BIG, "red", "", "Pass", (0, 252), PASS_CC),
    (BIG, "red", "", None, (0, 252), TIMEOUT),
    (BIG, "white", "", "C5", (239, 0), INVALID),
    (BIG, "white", "", "D2", (239, 0), NO_TALLER),
    (BIG, "white", "", "E7", (239, 0), NO_SUICIDE),
    (BIG, "white", "", "Pass", (239, 0), PASS_CC),
    (BIG, "white", "", None, (239, 0), TIMEOUT),
    # After red F3: 39 : 51, only F6 neutral: floor(0.9) = 0.
    (BIG, "red", "F3", "A1", (239, 0), NO_POINTS),  # A1 is suicidal for white
    (BIG, "red", "F3", None, (239, 0), NEUTRAL_AREA),
    (BIG_SWAPPED, "red", "", None, (0, 239), FORFEIT),
    (BIG_SWAPPED, "white", "", None, (252, 0), FORFEIT),
    (DRAWN, "red", "", None, (0, 245), FORFEIT),  # 45 + floor(0.9 * 1)
    (TIES, "red", "", None, (0, 249), FORFEIT),  # 47 + floor(0.9 * 3)
    (TIES, "white", "", "A2", (243, 0), NO_SUICIDE),  # 41 + floor(0.9 * 3)
    (DRAWN, "white", "", "C5", (245, 0), FORFEIT),
    (FULL, "red", "", "F6", (0, 245), NO_TALLER),  # 200 + 45 + 0
    (START, "red", "", "K11", (0, 281), INVALID),  # 200 + 0 + floor(0.9 * 91)
    # BIG8: 82 : 85, neutral 2 (H3, H8).
    (BIG8, "red", "", "O15", (0, 286), INVALID),
    (BIG8, "white", "", "B2", (283, 0), INVALID),
]


# ------------------------------------------------------------------------------ engines
@dataclass
class Game:
    """One engine's game under test (the adapter keeps whatever it needs in ``state``)."""

    engine: object
    size: int
    variant: str
    state: object = None
    extra: dict = field(default_factory=dict)


class NumpyEngine:
    """Adapter for the batched engine (one game = a batch of one), on its numpy path."""

    name = "numpy"
    kernel = "numpy"  # tw_rl.core.kernel.engine() for every test with this adapter

    def __init__(self) -> None:
        from tw_rl.core import notation, rules, state

        self.notation, self.rules_module, self.codes = notation, rules, state
        self._rules: dict = {}

    def _rules_for(self, size: int, variant: str):
        key = (size, variant)
        if key not in self._rules:
            self._rules[key] = self.rules_module.Rules(size, variant)
        return self._rules[key]

    def load(self, pos: Pos, variant: str, to_move: str, passes: int = 0):
        rules = self._rules_for(pos.size, variant)
        owner = np.zeros(rules.num_cells, dtype=np.int8)
        height = np.zeros(rules.num_cells, dtype=np.int8)
        code = {"r": self.codes.RED, "w": self.codes.WHITE, "n": self.codes.NEUTRAL}
        for name, token in pos.cells().items():
            i = self.notation.parse_cell(rules.grid, name, allow_pass=False)
            owner[i], height[i] = code[token[0]], int(token[1:])
        mover = self.codes.RED if to_move == "red" else self.codes.WHITE
        return (rules, rules.position(owner, height, mover, passes))

    def _index(self, game, name: str) -> int:
        rules, _ = game
        return self.notation.parse_cell(rules.grid, name, allow_pass=False)

    def sight(self, game, name: str) -> tuple[int, int]:
        _, state = game
        i = self._index(game, name)
        return int(state.sight[0, 0, i]), int(state.sight[0, 1, i])

    def legal(self, game) -> set[str]:
        rules, state = game
        mask = rules.legal_mask(state)[0]
        return {self.name_of(game, int(a)) for a in np.flatnonzero(mask)}

    def name_of(self, game, action: int) -> str:
        rules, _ = game
        return "Pass" if action == rules.num_cells else self.notation.cell_name(rules.grid, action)

    def play(self, game, move: str | None):
        rules, state = game
        if move is None:
            action = -1  # no move at all (how the referee plays a time-out or a crash)
        elif move == "Pass":
            action = rules.num_cells
        else:
            action = self._index(game, move)
        return (rules, rules.step(state, action))

    def stack(self, game, name: str) -> str:
        _, state = game
        i = self._index(game, name)
        letter = {0: ".", 1: "r", 2: "w", 3: "n"}[int(state.owner[0, i])]
        return letter if letter == "." else f"{letter}{int(state.height[0, i])}"

    def to_move(self, game) -> str:
        return "red" if int(game[1].to_move[0]) == self.codes.RED else "white"

    def territory(self, game) -> tuple[set[str], set[str]]:
        rules, state = game
        rules.ensure_territory(state)
        terr = state.territory[0]
        return tuple({self.name_of(game, int(i)) for i in np.flatnonzero(terr[k])} for k in (0, 1))

    def over(self, game) -> bool:
        return bool(game[1].terminated[0])

    def forfeit(self, game) -> str | None:
        return {0: None, 1: "red", 2: "white"}[int(game[1].forfeit[0])]

    def score(self, game) -> tuple[int, int]:
        rules, state = game
        points = rules.score(state)[0]
        return int(points[0]), int(points[1])

    def winner(self, game) -> str:
        rules, state = game
        return {0: "draw", 1: "red", 2: "white"}[int(rules.winner(state)[0])]


class ScalarEngine:
    """Adapter for the standard-library engine the bot ships (tw_rl.codecup.rules)."""

    name = "scalar"

    def __init__(self) -> None:
        from tw_rl.codecup import rules

        self.m = rules
        self._boards: dict = {}

    def load(self, pos: Pos, variant: str, to_move: str, passes: int = 0):
        m = self.m
        board = self._boards.setdefault(pos.size, m.Board(pos.size))
        position = m.Position(board, variant)
        code = {"r": m.RED, "w": m.WHITE, "n": m.NEUTRAL}
        for name, token in pos.cells().items():
            i = board.parse(name)
            position.owner[i], position.height[i] = code[token[0]], int(token[1:])
        position.to_move = m.RED if to_move == "red" else m.WHITE
        position.passes = passes
        return position

    def sight(self, game, name: str) -> tuple[int, int]:
        i = game.board.parse(name)
        return game.sight(i, self.m.RED), game.sight(i, self.m.WHITE)

    def name_of(self, game, move: int) -> str:
        return "Pass" if move == game.board.num_cells else game.board.name(move)

    def legal(self, game) -> set[str]:
        return {self.name_of(game, m) for m in game.legal_moves()}

    def play(self, game, move: str | None):
        game = game.copy()
        if move is None:
            game.play(-1)  # no move at all
        elif move == "Pass":
            game.play(game.board.num_cells)
        else:
            game.play(game.board.parse(move))
        return game

    def stack(self, game, name: str) -> str:
        i = game.board.parse(name)
        letter = {self.m.EMPTY: ".", self.m.RED: "r", self.m.WHITE: "w", self.m.NEUTRAL: "n"}[game.owner[i]]
        return letter if letter == "." else f"{letter}{game.height[i]}"

    def to_move(self, game) -> str:
        return "red" if game.to_move == self.m.RED else "white"

    def territory(self, game) -> tuple[set[str], set[str]]:
        red, white = game.territory()
        return {game.board.name(i) for i in red}, {game.board.name(i) for i in white}

    def over(self, game) -> bool:
        return bool(game.over)

    def forfeit(self, game) -> str | None:
        return {0: None, self.m.RED: "red", self.m.WHITE: "white"}[game.forfeit]

    def score(self, game) -> tuple[int, int]:
        red, white = game.score()
        return int(red), int(white)

    def winner(self, game) -> str:
        win = game.winner()
        assert win is not None, "winner() of a finished game"
        return {0: "draw", self.m.RED: "red", self.m.WHITE: "white"}[win]


class CompiledEngine(NumpyEngine):
    """The batched engine with its compiled kernel (skipped where it cannot be built)."""

    name = "compiled"
    kernel = "c"


ENGINES = {"numpy": NumpyEngine, "compiled": CompiledEngine, "scalar": ScalarEngine}
_ENGINE_CACHE: dict = {}


@pytest.fixture(params=sorted(ENGINES))
def engine(request):
    from tw_rl.core import kernel

    cls = ENGINES[request.param]
    if getattr(cls, "kernel", None) == "c" and not kernel.compiled_available():
        pytest.skip(f"the compiled kernel is unavailable: {kernel.why_unavailable()}")
    if request.param not in _ENGINE_CACHE:
        _ENGINE_CACHE[request.param] = cls()
    with kernel.engine(getattr(cls, "kernel", "auto")):
        yield _ENGINE_CACHE[request.param]


def play_all(engine, game, moves: str):
    for move in moves.split():
        assert not engine.over(game), f"the game is over before {move}"
        before = engine.to_move(game)
        game = engine.play(game, move)
        assert engine.forfeit(game) is None, f"{move} by {before} should be legal"
    return game


def row_id(*parts) -> str:
    return "-".join(str(p).replace(" ", "_") for p in parts if p not in ("", None))


def position_name(pos: Pos) -> str:
    for name, value in globals().items():
        if isinstance(value, Pos) and value == pos and name.isupper():
            return name.lower()
    return f"pos{abs(hash(pos)) % 1000}"


# -------------------------------------------------------------------------------- tests
@pytest.mark.parametrize(
    "pos,cell,red,white,cite",
    SIGHT_ROWS,
    ids=[row_id(position_name(r[0]), r[1]) for r in SIGHT_ROWS],
)
def test_sight(engine, pos, cell, red, white, cite):
    game = engine.load(pos, "codecup", "red")
    assert engine.sight(game, cell) == (red, white), cite


@pytest.mark.parametrize(
    "pos,variant,to_move,expected,cite",
    LEGAL_ROWS,
    ids=[row_id(position_name(r[0]), r[1], r[2]) for r in LEGAL_ROWS],
)
def test_legal_actions(engine, pos, variant, to_move, expected, cite):
    game = engine.load(pos, variant, to_move)
    assert engine.legal(game) == set(expected.split()), cite


@pytest.mark.parametrize(
    "pos,variant,to_move,cells,cite",
    LEGAL_CELL_ROWS,
    ids=[row_id(position_name(r[0]), r[1], r[2], *r[3]) for r in LEGAL_CELL_ROWS],
)
def test_legal_cells(engine, pos, variant, to_move, cells, cite):
    legal = engine.legal(engine.load(pos, variant, to_move))
    assert {cell: cell in legal for cell in cells} == cells, cite


@pytest.mark.parametrize(
    "pos,variant,to_move,move,stack,cite",
    PLACE_ROWS,
    ids=[row_id(position_name(r[0]), r[1], r[2], r[3]) for r in PLACE_ROWS],
)
def test_placement(engine, pos, variant, to_move, move, stack, cite):
    game = engine.load(pos, variant, to_move)
    after = engine.play(game, move)
    assert engine.forfeit(after) is None, f"{move} is legal: {cite}"
    assert engine.stack(after, move) == stack, cite
    assert engine.to_move(after) == OTHER[to_move]
    # Nothing else changes.
    for name in all_cells(pos.size):
        if name != move:
            assert engine.stack(after, name) == engine.stack(game, name), name


@pytest.mark.parametrize(
    "pos,moves,red,white,cells,cite",
    TERRITORY_ROWS,
    ids=[row_id(position_name(r[0]), r[1]) for r in TERRITORY_ROWS],
)
def test_territory(engine, pos, moves, red, white, cells, cite):
    game = play_all(engine, engine.load(pos, "codecup", "red"), moves)
    red_cells, white_cells = engine.territory(game)
    assert (len(red_cells), len(white_cells)) == (red, white), cite
    for name, whose in cells.items():
        got = {(True, True): BOTH, (True, False): RED, (False, True): WHITE, (False, False): NONE}[
            (name in red_cells, name in white_cells)
        ]
        assert got == whose, f"{name}: {cite}"


@pytest.mark.parametrize(
    "pos,variant,to_move,moves,over,points,winner,cite",
    GAME_ROWS,
    ids=[row_id(position_name(r[0]), r[1], r[2], r[3]) for r in GAME_ROWS],
)
def test_game_end_and_score(engine, pos, variant, to_move, moves, over, points, winner, cite):
    game = play_all(engine, engine.load(pos, variant, to_move), moves)
    assert engine.over(game) == over, cite
    if points is not None:
        assert engine.score(game) == points, cite
    if winner is not None:
        assert engine.winner(game) == winner, cite


@pytest.mark.parametrize(
    "pos,to_move,moves,offence,points,cite",
    FORFEIT_ROWS,
    ids=[row_id(position_name(r[0]), r[1], r[2], r[3] or "no-move") for r in FORFEIT_ROWS],
)
def test_forfeit(engine, pos, to_move, moves, offence, points, cite):
    game = play_all(engine, engine.load(pos, "codecup", to_move), moves)
    offender = engine.to_move(game)
    before = {name: engine.stack(game, name) for name in all_cells(pos.size)}
    after = engine.play(game, offence)
    assert engine.forfeit(after) == offender, cite
    assert engine.over(after), cite
    assert engine.score(after) == points, cite
    assert engine.winner(after) == OTHER[offender], cite
    assert {name: engine.stack(after, name) for name in before} == before  # the move is not played


def test_a_third_engine_needs_one_adapter():
    """Every table test goes through these adapter methods and nothing else."""
    needed = {
        "load",
        "sight",
        "legal",
        "play",
        "stack",
        "to_move",
        "territory",
        "over",
        "forfeit",
        "score",
        "winner",
    }
    for cls in ENGINES.values():
        assert needed <= set(dir(cls)), cls


def test_positions_are_what_the_comments_say():
    """Stack counts of the big positions, by colour (the hand computations start from these)."""

    def counts(pos):
        cells = pos.cells()
        out = {k: sum(1 for t in cells.values() if t[0] == k) for k in "rwn"}
        out["."] = len(all_cells(pos.size)) - len(cells)
        return out

    assert len(all_cells(6)) == 91 and len(all_cells(8)) == 169
    assert counts(BIG) == {"r": 34, "w": 49, "n": 1, ".": 7}
    assert counts(DRAWN) == {"r": 44, "w": 44, "n": 1, ".": 2}
    assert counts(FULL) == {"r": 46, "w": 45, "n": 0, ".": 0}
    assert counts(TIES) == {"r": 41, "w": 47, "n": 1, ".": 2}
    assert counts(BIG8) == {"r": 80, "w": 86, "n": 1, ".": 2}


def _normalise(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text)


CITATIONS = sorted(
    {r[-1] for table in (SIGHT_ROWS, LEGAL_ROWS, LEGAL_CELL_ROWS, PLACE_ROWS, TERRITORY_ROWS) for r in table}
    | {r[-1] for table in (GAME_ROWS, FORFEIT_ROWS) for r in table}
    | {MORE_THAN_OPPONENT}
)
DOCUMENTS = {
    "CC": "codecup-2025-tumbleweed.txt",
    "RB": "rulebook.txt",
    "WK": "wiki-overview.txt",
    "BGA": "bga-implementation.txt",
    "RM": str(Path(__file__).resolve().parents[2] / "docs" / "rules.md"),  # in the repository
}


@pytest.mark.parametrize("cite", CITATIONS)
def test_citations_are_verbatim(cite):
    source, phrase = cite.split(": ", 1)
    path = RULES_DIR / DOCUMENTS[source]
    if not path.exists():
        pytest.skip(f"{path} is not here (set TW_RULES_DIR)")
    assert _normalise(phrase) in _normalise(path.read_text(encoding="utf-8")), cite
