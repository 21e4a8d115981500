"""Positions for the hand-computed rule tables (issue 16), shared by the rule-table and the
referee fault-scoring tests.

Cell names, neighbours and board shapes are written out by hand from docs/rules.md (the "diff"
reading); nothing here comes from an engine.

How the big positions were computed by hand
-------------------------------------------
Most territory and score rows use nearly full boards: stacks of height 6 (which nobody can
ever beat, since a cell sees at most 6 stacks) with a few planted features. A hole (an empty
cell) whose six neighbours are all stacks sees exactly its neighbours, and filling it changes
nothing that any other hole sees, so each feature can be worked out on its own:

* a hole that red sees more of than white: white may not fill it (suicide), red does, in both
  simulations: red territory. Equal sight (a "contested" hole): the side that fills first takes
  it, which is the opponent in each simulation, so it is in neither territory.
* a low stack surrounded by the other colour: captured ("dead") in both simulations.
* a white 3-stack that sees 3 red and 3 white stacks: nobody can beat height 3: white's.
* the neutral 2-stack on F6 seeing 3 red and 3 white stacks: taken by whoever fills first:
  in neither territory.
* two touching holes in the corner (A1, B2) that are suicidal for white: with the no-suicide
  rule red gets both; a simulation that let white play suicidal moves would give both to white
  (white fills B2 and A1, each then hides the other from red's stacks behind it). This is the
  row that catches a territory simulation without the no-suicide rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ------------------------------------------------------------------ geometry, by hand
# docs/rules.md, "diff" reading: column letter c (A = 0), row number r + 1; a cell iff |c - r| <= n - 1.
LETTERS = "ABCDEFGHIJKLMNOPQRSTU"
COLOURS = {"red": "r", "white": "w"}
OTHER = {"red": "white", "white": "red"}


def column_rows(size: int, c: int) -> range:
    """The row indices r of column c on the board with ``size`` cells per side."""
    return range(max(0, c - (size - 1)), min(2 * size - 2, c + size - 1) + 1)


def all_cells(size: int) -> list[str]:
    return [f"{LETTERS[c]}{r + 1}" for c in range(2 * size - 1) for r in column_rows(size, c)]


@dataclass(frozen=True)
class Pos:
    """A position as text: ``stacks`` ("F6:n2 C3:r1": name, owner r/w/n, height) or a
    ``picture``: one line per column, "C1: w6 r6 . ..." (the column's first cell, then its
    cells in row order; ``.`` is an empty cell)."""

    size: int = 6
    stacks: str = ""
    picture: str = ""

    def cells(self) -> dict[str, str]:
        """{name: 'r3'} for every stack, checked against the board's shape."""
        out: dict[str, str] = {}
        names = set(all_cells(self.size))
        if self.picture:
            seen_columns = set()
            for line in self.picture.strip().splitlines():
                head, tokens = line.split(":")
                tokens = tokens.split()
                c = LETTERS.index(head[0])
                rows = column_rows(self.size, c)
                assert head == f"{LETTERS[c]}{rows[0] + 1}", f"column {head} starts at row {rows[0] + 1}"
                assert len(tokens) == len(rows), f"column {head} has {len(rows)} cells, not {len(tokens)}"
                seen_columns.add(c)
                for r, token in zip(rows, tokens, strict=True):
                    if token != ".":
                        out[f"{LETTERS[c]}{r + 1}"] = token
            assert seen_columns == set(range(2 * self.size - 1)), "every column once"
        for item in self.stacks.split():
            name, token = item.split(":")
            out[name] = token
        for name, token in out.items():
            assert name in names, f"{name} is not a cell of the size-{self.size} board"
            assert re.fullmatch(r"[rwn][1-9]", token), token
        return out

    def swapped(self) -> Pos:
        """The same position with red and white exchanged (the rules treat both alike:
        CC "The calculation of white territory is done symmetrically.")."""
        table = str.maketrans("rw", "wr")
        return Pos(self.size, self.stacks.translate(table), self.picture.translate(table))


# ---------------------------------------------------------------------------- positions
# Sparse positions for sight and legality (every ray written out in the comments of the rows).
SPARSE = Pos(stacks="F6:n2 C3:r1 C7:w1 E5:r2 H8:w1 F9:r1 D8:w3 I6:r1")
# BGA "free setup" puts the neutral stack anywhere: here on A2, so the long lines through F6
# are open end to end (A1-K11 is 11 cells long).
OPEN_CENTRE = Pos(stacks="A2:n2 A1:r1 K11:w1 F1:r1 F11:w1 A6:w1 K6:r1")
# C4's six neighbours are red; its two other "corners" D3 and B5 are white and not neighbours.
SIX = Pos(stacks="F6:n2 C3:r1 C5:r1 B4:r1 D4:r1 D5:r1 B3:r1 D3:w1 B5:w1")
START = Pos(stacks="F6:n2 C3:r1 I9:w1")  # a CodeCup start: off the border, not neighbours
# Red's E5 placement is suicidal: E5 sees C3 (via D4) but both E3 and C5 (white).
SUICIDE = Pos(stacks="F6:n2 C3:r1 E3:w1 C5:w1")
SUICIDE_SWAPPED = SUICIDE.swapped()
REINFORCE = Pos(stacks="F6:n2 C3:r1 C5:r1 C7:r1 A5:r1 K11:w1")
NOT_TALLER = Pos(stacks="F6:n2 C3:r1 C5:r1 K11:w1")
NO_STACKS = Pos(stacks="F6:n2")  # neither colour has a stack: both must pass

# The big board. Features (all other stacks are 6 high, so never beaten):
#   A1, B2  holes, suicidal for white (A1: red A2 + C3 through B2, white B1;
#           B2: red C2 A2 C3, white B3 B1, and the ray through A1 leaves the board)
#   C5      hole seeing 6 red              J9   hole seeing 6 white
#   E7      hole 4 red : 2 white (F7, F8)  F10  hole 2 red (E9, E10) : 4 white
#   F3      hole 3 : 3 (E3 is white)       F6   neutral 2-stack, 3 : 3
#   D8      white 1-stack among 6 red      I6   red 2-stack among 6 white
#   D2      white 3-stack seeing 3 red (D3 C2 E2) and 3 white (D1 C1 E3): unbeatable
# Stacks: red 34, white 49; 7 holes; the neutral stack: 91 cells.
BIG = Pos(
    picture="""
A1: .  r6 r6 r6 r6 r6
B1: w6 .  w6 r6 r6 r6 r6
C1: w6 r6 r6 r6 .  r6 r6 r6
D1: w6 w3 r6 r6 r6 r6 r6 w1 r6
E1: r6 r6 w6 r6 r6 r6 .  r6 r6 r6
F1: r6 r6 .  r6 r6 n2 w6 w6 w6 .  w6
G2: w6 w6 w6 w6 w6 w6 w6 w6 w6 w6
H3: w6 w6 w6 w6 w6 w6 w6 w6 w6
I4: w6 w6 r2 w6 w6 w6 w6 w6
J5: w6 w6 w6 w6 .  w6 w6
K6: w6 w6 w6 w6 w6 w6
"""
)
BIG_SWAPPED = BIG.swapped()
# Ties inside the simulation: holes A3 and A2 on the west edge (4 rays each), B3 and B4 white.
#   A3 sees A1 (through A2) and A4 red, B3 and B4 white: 2 : 2.
#   A2 sees A1, A4 (through A3) and B2 red, B3 white: 3 : 1.
# Red's simulation: white fills A3 (equal sight is no suicide) and F6; now A2 sees A3 (white)
# instead of A4: 2 : 2, so white fills A2 too (and A3 grows to 3). Red can take neither back.
# White's simulation: red fills A2, A3 and F6. So A2, A3 and F6 are in neither territory:
# red 41 (its stacks), white 47 (its stacks), 3 neutral cells.
TIES = Pos(
    picture="""
A1: r6 .  .  r6 r6 r6
B1: r6 r6 w6 w6 r6 r6 r6
C1: r6 r6 r6 r6 r6 r6 r6 r6
D1: r6 r6 r6 r6 r6 r6 r6 r6 r6
E1: r6 r6 r6 r6 r6 r6 r6 r6 r6 r6
F1: r6 r6 r6 r6 r6 n2 w6 w6 w6 w6 w6
G2: w6 w6 w6 w6 w6 w6 w6 w6 w6 w6
H3: w6 w6 w6 w6 w6 w6 w6 w6 w6
I4: w6 w6 w6 w6 w6 w6 w6 w6
J5: w6 w6 w6 w6 w6 w6 w6
K6: w6 w6 w6 w6 w6 w6
"""
)
# Symmetric under a half turn with the colours exchanged: a red hole C5, a white hole I7, and F6
# seeing 3 : 3. Red 44 stacks + C5, white 44 + I7: 45 : 45.
DRAWN = Pos(
    picture="""
A1: r6 r6 r6 r6 r6 r6
B1: r6 r6 r6 r6 r6 r6 r6
C1: r6 r6 r6 r6 .  r6 r6 r6
D1: r6 r6 r6 r6 r6 r6 r6 r6 r6
E1: r6 r6 r6 r6 r6 r6 r6 r6 r6 r6
F1: r6 r6 r6 r6 r6 n2 w6 w6 w6 w6 w6
G2: w6 w6 w6 w6 w6 w6 w6 w6 w6 w6
H3: w6 w6 w6 w6 w6 w6 w6 w6 w6
I4: w6 w6 w6 .  w6 w6 w6 w6
J5: w6 w6 w6 w6 w6 w6 w6
K6: w6 w6 w6 w6 w6 w6
"""
)
# Every cell holds a 6-stack (red took the centre): 46 red, 45 white; nobody can move.
FULL = Pos(
    picture="""
A1: r6 r6 r6 r6 r6 r6
B1: r6 r6 r6 r6 r6 r6 r6
C1: r6 r6 r6 r6 r6 r6 r6 r6
D1: r6 r6 r6 r6 r6 r6 r6 r6 r6
E1: r6 r6 r6 r6 r6 r6 r6 r6 r6 r6
F1: r6 r6 r6 r6 r6 r6 w6 w6 w6 w6 w6
G2: w6 w6 w6 w6 w6 w6 w6 w6 w6 w6
H3: w6 w6 w6 w6 w6 w6 w6 w6 w6
I4: w6 w6 w6 w6 w6 w6 w6 w6
J5: w6 w6 w6 w6 w6 w6 w6
K6: w6 w6 w6 w6 w6 w6
"""
)
# The 8-board (169 cells, centre H8): red A-G and H1-H7, white H9-H15 and I-O, all 6 high, with
# B2 a hole seeing 6 red, D5 a white 1-stack among red, H3 a hole seeing 3 : 3 (G3 is white),
# H8 the neutral 2-stack seeing 3 : 3. Stacks: red 80, white 86; 2 holes; the neutral stack.
BIG8 = Pos(
    size=8,
    picture="""
A1: r6 r6 r6 r6 r6 r6 r6 r6
B1: r6 .  r6 r6 r6 r6 r6 r6 r6
C1: r6 r6 r6 r6 r6 r6 r6 r6 r6 r6
D1: r6 r6 r6 r6 w1 r6 r6 r6 r6 r6 r6
E1: r6 r6 r6 r6 r6 r6 r6 r6 r6 r6 r6 r6
F1: r6 r6 r6 r6 r6 r6 r6 r6 r6 r6 r6 r6 r6
G1: r6 r6 w6 r6 r6 r6 r6 r6 r6 r6 r6 r6 r6 r6
H1: r6 r6 .  r6 r6 r6 r6 n2 w6 w6 w6 w6 w6 w6 w6
I2: w6 w6 w6 w6 w6 w6 w6 w6 w6 w6 w6 w6 w6 w6
J3: w6 w6 w6 w6 w6 w6 w6 w6 w6 w6 w6 w6 w6
K4: w6 w6 w6 w6 w6 w6 w6 w6 w6 w6 w6 w6
L5: w6 w6 w6 w6 w6 w6 w6 w6 w6 w6 w6
M6: w6 w6 w6 w6 w6 w6 w6 w6 w6 w6
N7: w6 w6 w6 w6 w6 w6 w6 w6 w6
O8: w6 w6 w6 w6 w6 w6 w6 w6
""",
)
SPARSE8 = Pos(size=8, stacks="H8:n2 B2:r1 H2:w1 H14:r2 N14:w1 O8:r1")
