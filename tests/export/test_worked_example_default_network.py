"""Worked example: a default network for another board size is one entry of the table
(``tw_rl.codecup.weights.DEFAULT_NETWORKS``; a file name beside the module, or here a path), and
every caller finds it: the bot's command line, the rating's ``weights:default`` and
``student:default``, and whoever asks ``default_weights(size)``."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest
import torch

from tw_rl.codecup import __main__ as bot_main
from tw_rl.codecup import weights
from tw_rl.codecup.network import NetworkEvaluator
from tw_rl.core.baselines import BASELINES
from tw_rl.core.rules import Rules
from tw_rl.export.student import StudentNet
from tw_rl.export.weights_file import write_weights
from tw_rl.rating.player_specs import RatingError, make_player, parse_player
from tw_rl.training.match import play_pair


@pytest.fixture
def eight(tmp_path, monkeypatch):
    """A student for the 8-board, made the table's default for size 8 for one test."""
    torch.manual_seed(0)
    path = tmp_path / "student-8.twnet"
    write_weights(StudentNet(8, 8, 8).eval(), path, "float16")
    monkeypatch.setitem(weights.DEFAULT_NETWORKS, 8, str(path))  # the one entry
    return path


def test_without_an_entry_size_8_has_no_default_network():
    assert weights.default_weights(8) is None
    with pytest.raises(RatingError, match="no student is shipped for the size-8 board"):
        parse_player("student:default", size=8)


def test_an_entry_is_the_default_network_everywhere(eight, monkeypatch, capsys):
    assert weights.default_weights(8) == str(eight)
    args = bot_main._parser().parse_args(["--size", "8"])
    assert isinstance(bot_main.bot_evaluator(args), NetworkEvaluator)
    monkeypatch.setattr(sys, "stdin", io.StringIO("L12\nG6\nStart\nQuit\n"))
    monkeypatch.setattr(bot_main.time, "process_time", lambda: 0.0)
    assert bot_main.main(["--size", "8", "--time", "2"]) == 0 and len(capsys.readouterr().out.split()) == 1
    bot = parse_player("weights:default@3", size=8)[0]
    assert bot.options["command"].endswith(f"--weights {eight} --size 8 --time 3")  # the bot on the 8-board
    student = parse_player("student:default", size=8)[0]
    assert (student.path, student.size) == (str(eight), 8)
    rules = Rules(8)
    games = play_pair(rules, make_player(student, rules), BASELINES["random"], 2, np.random.default_rng(0))
    assert all(game.fault is None for game in games)
    assert parse_player("student:default")[0].size == 6  # the 6-board keeps its own
