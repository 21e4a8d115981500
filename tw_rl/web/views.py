"""A position as the web page draws it: plain JSON for the page's script.

``board_view`` is the board's fixed geometry (cell names and centres, in SVG user units), sent
once per game; ``position_view`` is one position: stacks, the side to act, the legal actions,
the player aids of Board Game Arena and the CodeCup viewer (where each side may place, each
side's simulated territory, the score bar's counts, and for every cell what a click would do:
the height of the stack it places, or why it is refused) and the result when the game is over.
"""

from __future__ import annotations

import numpy as np

from tw_rl.core.notation import cell_names
from tw_rl.core.picture import RADIUS, cell_centres
from tw_rl.core.rules import Rules
from tw_rl.core.state import (
    COLOUR_NAMES,
    PLAY,
    RED,
    SETUP_NEUTRAL,
    SETUP_PIE,
    SETUP_RED,
    SETUP_WHITE,
    WHITE,
    State,
)

OWNER_WORDS = {0: "", 1: "red", 2: "white", 3: "neutral"}
PHASE_WORDS = {
    PLAY: "play",
    SETUP_NEUTRAL: "place the neutral stack",
    SETUP_RED: "place red's start stack",
    SETUP_WHITE: "place white's start stack",
    SETUP_PIE: "choose a colour (click its start stack)",
}


def board_view(rules: Rules, notation: str = "diff") -> dict:
    """The board's geometry: cell names and centres (hexagon radius ``radius``).

    The centres are ``core.layout``'s (row 1 at the top, columns like "/"), so the page draws
    the board as ``tw-rl show`` does and holds no geometry of its own."""
    centres = cell_centres(rules.grid)
    return {
        "size": rules.size,
        "variant": rules.variant,
        "setup": rules.setup,
        "notation": notation,
        "radius": RADIUS,
        "names": cell_names(rules.grid, notation),
        "centres": [[round(x, 2), round(y, 2)] for x, y in centres],
        "pass_action": rules.num_cells,
    }


def _cells(mask: np.ndarray) -> list[int]:
    return [int(i) for i in np.flatnonzero(mask)]


def position_view(rules: Rules, state: State) -> dict:
    """One position (game 0 of ``state``) as the page draws it."""
    n = rules.num_cells
    rules.ensure_territory(state)
    phase = int(state.phase[0])
    over = bool(state.terminated[0])
    legal = rules.legal_mask(state)[0]
    in_play = phase == PLAY
    view = {
        "owner": [int(v) for v in state.owner[0]],
        "height": [int(v) for v in state.height[0]],
        "phase": PHASE_WORDS[phase],
        "to_move": COLOUR_NAMES[int(state.to_move[0])],
        "ply": int(state.ply[0]),
        "last_move": int(state.last_move[0]),
        "legal": _cells(legal[:n]),
        "pass_legal": bool(legal[n]),
        "over": over,
        # Player aids: where each side may place now, and each side's simulated territory.
        "placeable": {
            "red": _cells(rules.placement_mask(state, RED)[0]) if in_play and not over else [],
            "white": _cells(rules.placement_mask(state, WHITE)[0]) if in_play and not over else [],
        },
        "territory": {
            "red": _cells(state.territory[0, 0]),
            "white": _cells(state.territory[0, 1]),
        },
    }
    view["preview"] = _preview(rules, state) if in_play and not over else []
    view["score_bar"] = _score_bar(view, n)
    points = rules.score(state)[0]
    view["points"] = {"red": int(points[0]), "white": int(points[1])}
    view["winner"] = None
    if over:
        code = int(rules.winner(state)[0])
        view["winner"] = COLOUR_NAMES.get(code, "draw")
        view["forfeit"] = COLOUR_NAMES.get(int(state.forfeit[0]))
    return view


def _preview(rules: Rules, state: State) -> list[dict]:
    """Per cell, what the side to move placing there would do: ``height`` of the new stack,
    ``legal``, ``suicidal`` (the opponent sees more of its stacks there, so could take it at
    once: refused by CodeCup, allowed by the official rules) and ``why`` a refused one is."""
    mover = int(state.to_move[0])
    legal = rules.legal_mask(state)[0]
    sight = state.sight[0]
    out = []
    for cell in range(rules.num_cells):
        mine, theirs = int(sight[mover - 1, cell]), int(sight[2 - mover, cell])
        ok = bool(legal[cell])
        out.append(
            {
                "height": mine,
                "legal": ok,
                "suicidal": mine >= 1 and theirs > mine and mine > int(state.height[0, cell]),
                "why": None if ok else rules.why_illegal(state, cell),
            }
        )
    return out


def _score_bar(view: dict, cells: int) -> dict:
    """The CodeCup viewer's bar: each side's territory, then the cells outside both territories
    that only one side can play, then the rest (a cell in both territories counts as neither)."""
    red_t, white_t = set(view["territory"]["red"]), set(view["territory"]["white"])
    red_p, white_p = set(view["placeable"]["red"]), set(view["placeable"]["white"])
    red_only_t, white_only_t = red_t - white_t, white_t - red_t
    outside = set(range(cells)) - red_only_t - white_only_t
    red_only = (red_p - white_p) & outside
    white_only = (white_p - red_p) & outside
    return {
        "red_territory": len(red_only_t),
        "red_only": len(red_only),
        "white_only": len(white_only),
        "white_territory": len(white_only_t),
        "cells": cells,
    }


def status_line(view: dict) -> str:
    """One sentence for the page's status bar: whose turn, or the result."""
    points = view["points"]
    score = f"red {points['red']}, white {points['white']}"
    if view["over"]:
        if view.get("forfeit"):
            return f"Game over: {view['forfeit']} forfeits ({score})."
        if view["winner"] == "draw":
            return f"Game over: a draw ({score})."
        return f"Game over: {view['winner']} wins ({score})."
    if view["phase"] != "play":
        return f"Set-up: {view['phase']}."
    return f"{view['to_move'].capitalize()} to move (ply {view['ply']}); points now {score}."
