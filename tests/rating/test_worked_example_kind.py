"""Worked example: a new player kind (``example_kind.py``), registered at test time and then
usable everywhere a player is: the player language, the rating run (batched and refereed, where it is
served as a program in another process), the results database and the head-to-head."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from tw_rl.config import HeadToHeadConfig, RatingConfig
from tw_rl.core.rules import Rules
from tw_rl.rating import kinds
from tw_rl.rating.games import play_referee_game
from tw_rl.rating.head_to_head import head_to_head
from tw_rl.rating.player_specs import RatingError, parse_player, usage
from tw_rl.rating.rating_run import run_rating
from tw_rl.rating.results_db import ResultsDB
from tw_rl.training.match import balanced_slots

HERE = Path(__file__).resolve().parent
RULES = Rules(6)


@pytest.fixture
def example():
    """The example kind, registered for one test."""
    module = importlib.import_module("example_kind")
    if kinds.kind_named("first") is None:
        kinds.register(module.FirstLegal())
    yield module
    kinds.unregister("first")
    sys.modules.pop("example_kind", None)


def test_without_registration_the_kind_is_unknown():
    with pytest.raises(RatingError, match="'first' is not understood"):
        parse_player("first")


def test_a_new_kind_plays_in_a_rating_run_and_is_stored_under_its_own_name(example, tmp_path):
    assert "first[:NOTE]" in usage()
    spec = parse_player("first")[0]
    assert (spec.kind, spec.name, spec.in_process) == ("first", "first", True)
    assert parse_player("f2=first:again")[0].name == "f2"
    cfg = RatingConfig(
        players=["first", "random"],
        games=4,
        db=str(tmp_path / "r.sqlite"),
        out=str(tmp_path / "out"),
        progress=False,
        tensorboard=False,
        batch_size=4,
    )
    result = run_rating(cfg, log=lambda line: None)
    assert result.played == 4 and "first" in result.ratings
    with ResultsDB(cfg.db) as db:
        assert {p.name: p.kind for p in db.players()}["first"] == "first"
        assert all(game.fault is None for game in db.games(6))
    report = head_to_head(HeadToHeadConfig(player="first", opponent="random", games=2, batch=2, size=6))
    assert report["games"] == 2


def test_a_new_kind_is_served_to_the_referee_in_another_process(example, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    first, other = parse_player("first")[0], parse_player("first:white")[0]
    slot = balanced_slots(RULES, first.name, other.name, 1, np.random.default_rng(0))[0]
    game = play_referee_game(RULES, first, other, slot, 30.0, seed=1)
    assert game.fault is None, game.fault
    final = game.positions(RULES)[-1]
    assert final.terminated[0] and int(RULES.winner(final)[0]) == game.winner
    # The served player played as the batched one does: the lowest legal action every move.
    for before, move in zip(game.positions(RULES), game.moves, strict=False):
        assert move == int(example.first_legal(RULES, before, None)[0])
