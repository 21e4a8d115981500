"""Where each cell is drawn: the one screen layout of the board that every picture uses.

The CodeCup rules say: "The columns, which run north-east to south-west (like /), are labelled
A to K. The rows, which run west to east, are numbered from 1 to 11." With north up, rows are
horizontal lines of the picture and each column (a fixed letter) runs from upper right to lower
left. In the default ``diff`` reading (``notation``) that puts row 1 at the top, A1 at the top
left, A6 at the left corner, F1 at the top right and K11 at the bottom right: the picture of
the CodeCup's viewer (docs/rules.md, "How the board is drawn").

The layout is fixed on the cell coordinates (``hexgrid``), not on the names: board row ``r``
is picture line ``r`` from the top, and a step to the next column moves one cell to the right.
So the ``sum`` reading, which names the same cells with the rows' numbers mirrored, gets the
same picture with row 1 at the bottom (its columns still run like "/", A11 at the top left).

``screen_spots`` gives every cell's place on an integer lattice: ``x`` in half cell widths,
growing to the right, and ``y`` in picture lines, growing downward. The text board uses it as
it is; ``hexagon_centres`` turns it into the centres of touching pointy-top hexagons.
"""

from __future__ import annotations

import math

from tw_rl.core.hexgrid import HexGrid


def screen_spots(grid: HexGrid) -> list[tuple[int, int]]:
    """(x, y) of every cell in index order: x in half cell widths (right), y in lines (down).

    A cell (col, row) is at x = 2 * col - row, y = row: along a row (a fixed number) the
    letters run west to east; along a column (a fixed letter) each next row is one line lower
    and half a cell to the left, so the column runs like "/".
    """
    return [(2 * int(c) - int(r), int(r)) for c, r in grid.coords]


def hexagon_centres(grid: HexGrid, radius: float) -> list[tuple[float, float]]:
    """Centres of pointy-top hexagons of ``radius`` (centre to corner), in index order.

    A half cell width is ``radius * sqrt(3) / 2`` and a line is ``1.5 * radius``, so each of
    the six neighbour steps moves the centre by ``sqrt(3) * radius``: neighbours share a side.
    Screen y grows downward, as in SVG and in images.
    """
    half = radius * math.sqrt(3.0) / 2.0
    return [(half * x, 1.5 * radius * y) for x, y in screen_spots(grid)]
