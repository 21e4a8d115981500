"""The board as the CodeCup describes it: columns like "/", row 1 at the top, column A on the
left, in the screen layout (``core.layout``), the SVG picture and the text board."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from tw_rl.core.hexgrid import SIZES, hexgrid
from tw_rl.core.layout import hexagon_centres, screen_spots
from tw_rl.core.notation import cell_name, parse_cell, text_board
from tw_rl.core.picture import svg_board
from tw_rl.core.state import NEUTRAL, RED, WHITE

SVG = "{http://www.w3.org/2000/svg}"
COLUMN_A = [f"A{k}" for k in range(1, 7)]


def assert_codecup_orientation(where: dict[str, tuple[float, float]]) -> None:
    """``where``: screen (x right, y down) of A1..A6 and F1 on the 6-board in the CodeCup notation."""
    a1, a6, f1 = where["A1"], where["A6"], where["F1"]
    assert a1[1] < a6[1], "A1 is drawn above A6"
    assert a1[0] < f1[0] and a1[1] == pytest.approx(f1[1]), "A1 is left of F1, on the same row"
    for upper, lower in pairwise(COLUMN_A):
        (x0, y0), (x1, y1) = where[upper], where[lower]
        assert y1 > y0 and x1 < x0, f"{lower} is below and left of {upper}: the column runs like '/'"


def test_screen_spots_put_row_one_at_the_top_and_columns_like_a_slash():
    grid = hexgrid(6)
    spots = screen_spots(grid)
    where = {name: spots[parse_cell(grid, name)] for name in [*COLUMN_A, "F1"]}
    assert_codecup_orientation(where)
    # Row 1 is the whole top line, left to right A1..F1; K11 is the bottom right corner.
    top = min(y for _, y in spots)
    assert sorted((x, cell_name(grid, i)) for i, (x, y) in enumerate(spots) if y == top) == [
        (spots[parse_cell(grid, f"{c}1")][0], f"{c}1") for c in "ABCDEF"
    ]
    assert max(range(grid.num_cells), key=lambda i: (spots[i][1], spots[i][0])) == parse_cell(grid, "K11")


def test_the_sum_reading_is_the_same_picture_with_the_rows_numbered_from_the_bottom():
    grid = hexgrid(6)
    spots = screen_spots(grid)
    # The same cells in the same places; only the names differ. Its column A still runs like "/".
    column = [spots[parse_cell(grid, f"A{k}", "sum")] for k in range(11, 5, -1)]
    assert all(y1 > y0 and x1 < x0 for (x0, y0), (x1, y1) in pairwise(column))
    assert spots[parse_cell(grid, "F1", "sum")][1] == max(y for _, y in spots)


@pytest.mark.parametrize("size", SIZES)
def test_hexagon_centres_touch_exactly_their_neighbours(size):
    grid = hexgrid(size)
    radius = 10.0
    centres = np.array(hexagon_centres(grid, radius))
    distance = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=-1)
    touch = math.sqrt(3.0) * radius
    for i in range(grid.num_cells):
        near = {int(j) for j in grid.neighbours[i] if j >= 0}
        far = [j for j in range(grid.num_cells) if j != i and j not in near]
        assert np.allclose(distance[i, sorted(near)], touch)
        assert (distance[i, far] > touch + 1.0).all()


def _marked_board(grid, marks: dict[str, tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    owner = np.zeros(grid.num_cells, dtype=np.int8)
    height = np.zeros(grid.num_cells, dtype=np.int8)
    for name, (who, h) in marks.items():
        owner[parse_cell(grid, name)] = who
        height[parse_cell(grid, name)] = h
    return owner, height


def _text_place(board: str, token: str) -> tuple[float, float]:
    """(character column, line) of the one occurrence of ``token`` in a text board."""
    found = [(line.index(token), k) for k, line in enumerate(board.splitlines()) if token in line]
    assert len(found) == 1, (token, board)
    return float(found[0][0]), float(found[0][1])


def test_text_board_draws_the_codecup_orientation():
    grid = hexgrid(6)
    # Red stacks of heights 1..6 up column A, a white one on F1, a neutral one on K11.
    marks = {name: (RED, k + 1) for k, name in enumerate(COLUMN_A)}
    marks |= {"F1": (WHITE, 1), "K11": (NEUTRAL, 2)}
    owner, height = _marked_board(grid, marks)
    board = text_board(grid, owner, height)
    where = {name: _text_place(board, f"r{k + 1}") for k, name in enumerate(COLUMN_A)}
    where["F1"] = _text_place(board, "w1")
    assert_codecup_orientation(where)
    lines = board.splitlines()
    assert lines[0].split()[0] == "1" and lines[0].endswith("A1-F1")
    assert lines[5].endswith("A6-K6") and lines[-1].endswith("F11-K11")
    assert _text_place(board, "n2")[1] == len(lines) - 1
    # Each step up the column is one line down and half a cell (two characters) to the left.
    steps = {(where[b][0] - where[a][0], where[b][1] - where[a][1]) for a, b in pairwise(COLUMN_A)}
    assert steps == {(-2.0, 1.0)}


def _polygon_centre(points: str) -> tuple[float, float]:
    xy = [tuple(float(v) for v in p.split(",")) for p in points.split()]
    return sum(x for x, _ in xy) / len(xy), sum(y for _, y in xy) / len(xy)


def test_svg_draws_the_codecup_orientation():
    grid = hexgrid(6)
    owner, height = _marked_board(grid, {})
    empty = [False] * grid.num_cells
    root = ET.fromstring(svg_board(grid, owner.tolist(), height.tolist(), empty, empty))
    centres = {p.get("data-cell"): _polygon_centre(p.get("points")) for p in root.iter(f"{SVG}polygon")}
    assert_codecup_orientation(centres)
    # Each cell's name is written inside its own hexagon.
    for text in root.find(f".//{SVG}g[@id='names']"):
        x, y = centres[text.text]
        assert abs(float(text.get("x")) - x) < 1.0 and 0 < y - float(text.get("y")) < 30.0


def test_the_rules_page_shows_the_text_board_as_it_is_drawn():
    """docs/rules.md's picture of the empty 6-board is the text board the code draws today."""
    rules_page = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    grid = hexgrid(6)
    empty = np.zeros(grid.num_cells, dtype=np.int8)
    assert f"```text\n{text_board(grid, empty, empty)}\n```" in rules_page
