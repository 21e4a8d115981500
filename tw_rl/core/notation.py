"""Cell names, game records and text boards.

CodeCup names a cell by a capital letter (the column, running north-east to south-west) and a
number (the row, running west to east); F6 is the centre of the 6-per-side board. The
published text admits two readings, kept as the one switch ``notation`` (docs/rules.md):

- ``diff`` (the default): letter = col, number = row + 1; valid iff |c - r| <= n-1.
- ``sum``: letter = col, number = (2n-2 - row) + 1; valid iff n-1 <= c + r <= 3n-3.

Both are exact relabellings of the same board (``sum`` mirrors the rows), so nothing outside
this module depends on the choice.

A game record is a text file: line 1 red's start cell, line 2 white's start cell, then one move
per line (a cell name or ``Pass``); ``#`` starts a comment and blank lines are ignored.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from tw_rl.core.hexgrid import HexGrid
from tw_rl.core.layout import screen_spots
from tw_rl.core.state import EMPTY, NEUTRAL, RED, WHITE

NOTATIONS = ("diff", "sum")
PASS = "Pass"
LETTERS = string.ascii_uppercase


def check_notation(notation: str) -> str:
    if notation not in NOTATIONS:
        raise ValueError(f"notation must be one of {NOTATIONS}, got {notation!r}")
    return notation


def cell_name(grid: HexGrid, cell: int, notation: str = "diff") -> str:
    """The name of a cell index, e.g. 'F6'; the pass action is named 'Pass'."""
    check_notation(notation)
    if cell == grid.num_cells:
        return PASS
    col, row = (int(v) for v in grid.coords[cell])
    number = row + 1 if notation == "diff" else grid.width - row
    return f"{LETTERS[col]}{number}"


def cell_names(grid: HexGrid, notation: str = "diff") -> list[str]:
    """Names of all cells in index order."""
    return [cell_name(grid, i, notation) for i in range(grid.num_cells)]


def parse_cell(grid: HexGrid, text: str, notation: str = "diff", allow_pass: bool = True) -> int:
    """The action index named by ``text`` (a cell, or 'Pass'); ValueError if there is none."""
    check_notation(notation)
    word = text.strip()
    if allow_pass and word == PASS:
        return grid.num_cells
    if len(word) < 2 or word[0] not in LETTERS or not word[1:].isdigit():
        raise ValueError(f"{word!r} is not a cell name (a capital letter and a number, like F6)")
    col, number = LETTERS.index(word[0]), int(word[1:])
    row = number - 1 if notation == "diff" else grid.width - number
    if 0 <= col < grid.width and 0 <= row < grid.width and grid.grid_index[col, row] >= 0:
        return int(grid.grid_index[col, row])
    raise ValueError(f"{word} is not on the board with {grid.size} cells per side")


@dataclass
class Record:
    """A parsed game record: start cells and moves as action indices, with their source lines."""

    red_start: int
    white_start: int
    moves: list[int]
    move_lines: list[int]  # line number (1-based) of each move in the file


class RecordError(ValueError):
    """A game record that cannot be read; the message names the line and the text."""


def record_words(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(line number, word) for each item of a record: comments and blank lines dropped, lazily."""
    for number, line in enumerate(lines, start=1):
        word = line.split("#", 1)[0].strip()
        if word:
            yield number, word


def parse_record(grid: HexGrid, text: str, notation: str = "diff") -> Record:
    """Read a game record; cell names are checked, legality is not (that is the rules' job)."""
    items = list(record_words(text.splitlines()))
    if len(items) < 2:
        raise RecordError("a record needs red's and white's start cells on its first two lines")
    cells = []
    for k, (number, word) in enumerate(items):
        try:
            cells.append(parse_cell(grid, word, notation, allow_pass=k >= 2))
        except ValueError as err:
            what = ("red's start", "white's start")[k] if k < 2 else f"move at ply {k - 2}"
            raise RecordError(f"line {number}: {what} {word!r}: {err}") from None
    return Record(cells[0], cells[1], cells[2:], [n for n, _ in items[2:]])


def format_record(grid: HexGrid, red: int, white: int, moves: list[int], notation: str = "diff") -> str:
    """The text of a game record (the inverse of ``parse_record``)."""
    return "\n".join(cell_name(grid, c, notation) for c in [red, white, *moves]) + "\n"


def text_board(
    grid: HexGrid,
    owner: np.ndarray,
    height: np.ndarray,
    last_move: int = -1,
    notation: str = "diff",
) -> str:
    """A hexagonal text picture of one position, laid out as every picture is (``layout``).

    Each cell shows its stack as owner letter + height (``r3`` red, ``w1`` white, ``n2``
    neutral) or ``.`` when empty; the last move is wrapped in brackets. Each line is one board
    row, its number on the left and its first and last cell on the right; lines are shifted by
    half a cell so that neighbours touch as on the real board. In the default notation row 1
    is the top line and each column runs down to the left, like "/".
    """
    symbol = {RED: "r", WHITE: "w", NEUTRAL: "n"}
    spots = screen_spots(grid)
    left = min(x for x, _ in spots)
    right = max(x for x, _ in spots)
    lines_of: dict[int, list[int]] = {}
    for cell, (_, y) in enumerate(spots):
        lines_of.setdefault(y, []).append(cell)
    lines = []
    for y in sorted(lines_of):
        cells = sorted(lines_of[y], key=lambda i: spots[i][0])
        # A cell is four characters wide, so a half cell width is two.
        indent = 2 * (spots[cells[0]][0] - left)
        tail = 2 * (right - spots[cells[-1]][0])
        parts = []
        for cell in cells:
            if owner[cell] == EMPTY:
                text = " ."
            else:
                text = f"{symbol[int(owner[cell])]}{int(height[cell])}"
            parts.append(f"[{text}]" if cell == last_move else f" {text} ")
        first, last = cell_name(grid, cells[0], notation), cell_name(grid, cells[-1], notation)
        lines.append(f"{first[1:]:>3} {' ' * indent}{''.join(parts)}{' ' * (tail + 3)}{first}-{last}")
    return "\n".join(lines)
