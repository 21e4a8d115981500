"""Shared pieces of the web page's tests: a results database with real games, a record."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tw_rl.core.notation import cell_name, format_record
from tw_rl.core.rules import Rules
from tw_rl.rating.results_db import GameRow, Identity, ResultsDB


def random_game(seed: int, size: int = 6) -> tuple[Rules, int, int, list[int]]:
    """A complete CodeCup game of random legal moves: (rules, red start, white start, actions)."""
    rules = Rules(size, "codecup")
    rng = np.random.default_rng(seed)
    red, white = (int(c[0]) for c in rules.draw_starts(1, rng))
    state = rules.start(red, white)
    actions = []
    while not state.terminated[0]:
        action = int(rng.choice(np.flatnonzero(rules.legal_mask(state)[0])))
        actions.append(action)
        state = rules.step(state, action)
    return rules, red, white, actions


def record_text(seed: int, size: int = 6) -> str:
    rules, red, white, actions = random_game(seed, size)
    return format_record(rules.grid, red, white, actions)


@pytest.fixture
def results_db(tmp_path) -> Path:
    """Two stored games between two baselines: one played out, one that ends in a fault."""
    path = tmp_path / "results.sqlite"
    with ResultsDB(path) as db:
        a = db.register(Identity("baseline", label="random"), "random")
        b = db.register(Identity("baseline", label="greedy"), "greedy")
        rules, red, white, actions = random_game(3)
        names = [cell_name(rules.grid, x) for x in actions]
        db.add_game(
            GameRow(
                a.id,
                b.id,
                6,
                0,
                3,
                cell_name(rules.grid, red),
                cell_name(rules.grid, white),
                1.0,
                200,
                100,
                "end rule",
                " ".join(names),
                len(names),
                "batched",
            )
        )
        # A fault: the first move is not a legal one (a stone on the neutral centre).
        centre = cell_name(rules.grid, rules.grid.centre)
        db.add_game(
            GameRow(
                b.id,
                a.id,
                6,
                1,
                4,
                cell_name(rules.grid, red),
                cell_name(rules.grid, white),
                0.0,
                0,
                281,
                "fault",
                centre,
                1,
                "referee",
                fault="greedy played an illegal move",
            )
        )
    return path
