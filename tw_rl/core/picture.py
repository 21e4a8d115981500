"""An SVG picture of one position: hexagonal cells, stacks, the last move and simulated territory.

Standard library only: the caller passes plain sequences (lists, or numpy rows read item by
item). Cells are pointy-top hexagons placed by ``layout`` (the board as the CodeCup describes
it: columns like "/", row 1 at the top in the default notation), the one place that decides
where a cell is drawn; this module only draws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from xml.sax.saxutils import escape

from tw_rl.core.hexgrid import HexGrid
from tw_rl.core.layout import hexagon_centres
from tw_rl.core.notation import cell_name

RADIUS = 30.0  # hexagon radius (centre to corner) in SVG user units
MARGIN = 20.0
LEGEND_HEIGHT = 70.0

# Cell fills by simulated territory: (in red's, in white's) -> colour, legend label.
FILLS = {
    (True, False): ("#f4b4b4", "red territory"),
    (False, True): ("#bccbe3", "white territory"),
    (True, True): ("#dcc3e6", "both territories"),
    (False, False): ("#f5f3ea", "neither"),
}
# Stack discs: owner code (1 red, 2 white, 3 neutral) -> disc fill, rim, number colour.
DISCS = {
    1: ("#c62828", "#7f1414", "#ffffff"),
    2: ("#fafafa", "#444444", "#111111"),
    3: ("#9e9e9e", "#555555", "#111111"),
}
OWNER_WORDS = {1: "red", 2: "white", 3: "neutral"}


def cell_centres(grid: HexGrid) -> list[tuple[float, float]]:
    """Centres (before the margin shift, SVG user units) of every cell, in cell index order."""
    return hexagon_centres(grid, RADIUS)


def _hexagon(x: float, y: float, radius: float) -> str:
    corners = []
    for k in range(6):
        angle = math.radians(60 * k + 30)
        corners.append(f"{x + radius * math.cos(angle):.2f},{y + radius * math.sin(angle):.2f}")
    return " ".join(corners)


def svg_board(
    grid: HexGrid,
    owner: Sequence[int],
    height: Sequence[int],
    territory_red: Sequence[bool],
    territory_white: Sequence[bool],
    last_move: int = -1,
    notation: str = "diff",
) -> str:
    """The SVG text of one position.

    One ``polygon`` per cell (class ``cell``), filled by simulated territory; one ``circle``
    per stack (class ``stack``) coloured red, white or grey with its height written on it; the
    last move (a cell index; -1 or the pass action for none) outlined by a thick black
    ``path`` (class ``last-move``); every cell's name in small type; a four-entry legend.
    """
    n = grid.num_cells
    for label, seq in (
        ("owner", owner),
        ("height", height),
        ("territory_red", territory_red),
        ("territory_white", territory_white),
    ):
        if len(seq) != n:
            raise ValueError(f"{label} has {len(seq)} entries, the board has {n} cells")
    centres = cell_centres(grid)
    half_w = RADIUS * math.sqrt(3.0) / 2.0
    min_x = min(x for x, _ in centres) - half_w - MARGIN
    max_x = max(x for x, _ in centres) + half_w + MARGIN
    min_y = min(y for _, y in centres) - RADIUS - MARGIN
    max_y = max(y for _, y in centres) + RADIUS + MARGIN
    width, board_height = max_x - min_x, max_y - min_y
    total_height = board_height + LEGEND_HEIGHT
    centres = [(x - min_x, y - min_y) for x, y in centres]

    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{total_height:.0f}" '
        f'viewBox="0 0 {width:.2f} {total_height:.2f}" font-family="sans-serif">',
        f"<title>Tumbleweed position, {grid.size} cells per side</title>",
        f'<rect x="0" y="0" width="{width:.2f}" height="{total_height:.2f}" fill="#ffffff"/>',
        '<g id="cells">',
    ]
    for i, (x, y) in enumerate(centres):
        fill, _ = FILLS[(bool(territory_red[i]), bool(territory_white[i]))]
        name = cell_name(grid, i, notation)
        out.append(
            f'<polygon class="cell" data-cell="{name}" points="{_hexagon(x, y, RADIUS)}" '
            f'fill="{fill}" stroke="#8a8a8a" stroke-width="1"/>'
        )
    out.append("</g>")

    out.append('<g id="names" font-size="8" fill="#555555" text-anchor="middle">')
    for i, (x, y) in enumerate(centres):
        out.append(f'<text x="{x:.2f}" y="{y - RADIUS * 0.58:.2f}">{cell_name(grid, i, notation)}</text>')
    out.append("</g>")

    out.append('<g id="stacks" text-anchor="middle" font-weight="bold">')
    for i, (x, y) in enumerate(centres):
        code = int(owner[i])
        if code == 0:
            continue
        fill, rim, ink = DISCS[code]
        h = int(height[i])
        word = OWNER_WORDS[code]
        out.append(
            f'<circle class="stack" data-owner="{word}" data-height="{h}" cx="{x:.2f}" '
            f'cy="{y + RADIUS * 0.12:.2f}" r="{RADIUS * 0.52:.2f}" fill="{fill}" stroke="{rim}" '
            f'stroke-width="1.5"/>'
        )
        out.append(
            f'<text x="{x:.2f}" y="{y + RADIUS * 0.12 + 5:.2f}" font-size="14" fill="{ink}">{h}</text>'
        )
    out.append("</g>")

    if 0 <= last_move < n:
        x, y = centres[last_move]
        points = _hexagon(x, y, RADIUS - 2.0).split()
        out.append(
            f'<path class="last-move" d="M {" L ".join(points)} Z" fill="none" stroke="#000000" '
            f'stroke-width="4" stroke-linejoin="round"/>'
        )

    out.append('<g id="legend" font-size="11" fill="#222222">')
    entries = list(FILLS.values())
    column = width / len(entries)
    top = board_height + 8
    for k, (fill, label) in enumerate(entries):
        x = 10 + k * column
        out.append(f'<rect x="{x:.2f}" y="{top:.2f}" width="14" height="14" fill="{fill}" stroke="#8a8a8a"/>')
        out.append(f'<text x="{x + 18:.2f}" y="{top + 11:.2f}">{escape(label)}</text>')
    out.append(
        f'<text x="10" y="{top + 36:.2f}">discs: red, white and grey (neutral) stacks with their '
        f"height; thick outline: last move</text>"
    )
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
