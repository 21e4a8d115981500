"""Aids while playing: the CodeCup bot's view of a position (its evaluator's value, for the live
evaluation bar) and a hint (a short search: the best move, its principal variation and value).

Both run the bot's own standard-library engine on any board (the shipped student on the
6-board, the territory evaluator elsewhere); a checkpoint's value comes from ``study.Analyst``.
"""

from __future__ import annotations

import time

from tw_rl.codecup.rules import Board
from tw_rl.codecup.search import MCTS
from tw_rl.core.notation import cell_name
from tw_rl.core.rules import Rules
from tw_rl.core.state import PLAY, RED, State
from tw_rl.scalar_position import state_position
from tw_rl.web.bots import bot_evaluator

MAX_PV = 8  # moves of the principal variation shown


class HintError(ValueError):
    """No hint or evaluation here (the set-up, a finished game): one line."""


def _position(rules: Rules, state: State):
    if state.terminated[0]:
        raise HintError("the game is over")
    if int(state.phase[0]) != PLAY:
        raise HintError("no evaluation during the set-up")
    return state_position(Board(rules.size), state, 0, rules.variant, rules.stale_end)


def _for_red(value: float, state: State) -> float:
    return value if int(state.to_move[0]) == RED else -value


def bot_value(rules: Rules, state: State) -> dict:
    """The bot's evaluator's value of game 0 of ``state``: for the side to move and for red."""
    position = _position(rules, state)
    evaluator, note = bot_evaluator(rules.size)
    _, value = evaluator.evaluate(position)
    value = max(-1.0, min(1.0, float(value)))
    return {
        "by": "bot",
        "value": round(value, 3),
        "value_red": round(_for_red(value, state), 3),
        "note": f"the CodeCup bot's evaluator, {note}",
    }


def hint(rules: Rules, state: State, seconds: float, notation: str = "diff") -> dict:
    """A search of ``seconds`` from game 0 of ``state``: the best move, the principal variation
    (the most visited line of the tree) and the search's value for the side to move."""
    position = _position(rules, state)
    evaluator, note = bot_evaluator(rules.size)
    search = MCTS(evaluator, reuse=True)
    best = search.search(position, deadline=time.monotonic() + seconds)
    line = [best]
    node = search.root  # the subtree of the chosen move
    while node is not None and node.moves and node.children and len(line) < MAX_PV:
        k = max(range(len(node.children)), key=lambda i: (node.n[i], node.w[i]))
        if node.n[k] == 0:
            break
        line.append(node.moves[k])
        node = node.children[k]
    stats = search.last_stats[0] if search.last_stats else (best, 0, 0.0, 0.0)
    value = max(-1.0, min(1.0, float(stats[2])))
    return {
        "best": cell_name(rules.grid, best, notation),
        "pv": [cell_name(rules.grid, m, notation) for m in line],
        "value": round(value, 3),
        "value_red": round(_for_red(value, state), 3),
        "simulations": search.last_sims,
        "note": f"the CodeCup bot's search, {seconds:g} s, {note}",
    }
