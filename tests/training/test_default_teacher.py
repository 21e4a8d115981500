"""The teacher shipped in the package: loads without pickle, plays legal games, and is what
``default`` means for the arena, the export and ``init_from``."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import tiny_train_config

from tw_rl.config import TrainConfig
from tw_rl.core.baselines import BASELINES
from tw_rl.core.mcts import SearchConfig
from tw_rl.core.rules import Rules
from tw_rl.rating.player_specs import parse_player
from tw_rl.training.checkpoint import (
    CHECKPOINT_FORMAT,
    DEFAULT_TEACHER,
    CheckpointError,
    load_checkpoint,
    net_from_checkpoint,
    resolve_checkpoint,
)
from tw_rl.training.loop import train
from tw_rl.training.match import play_match, search_player
from tw_rl.training.net import NetPolicyValue

RULES = Rules(6)


def test_the_shipped_teacher_loads_without_pickle_and_plays_legal_games():
    payload = torch.load(DEFAULT_TEACHER, map_location="cpu", weights_only=True)
    assert payload["format"] == CHECKPOINT_FORMAT and payload["size"] == 6
    assert DEFAULT_TEACHER.stat().st_size < 4_000_000  # small enough to ship
    net = net_from_checkpoint(payload)
    player = search_player(NetPolicyValue(net, RULES), SearchConfig(simulations=4))
    score = play_match(RULES, player, BASELINES["random"], 4, np.random.default_rng(0))
    # An illegal move would forfeit the game with 0 points; every game ends by the rules here.
    assert score.games == 4 and score.wins == 4 and score.points_b > 0


def test_default_names_the_shipped_teacher_everywhere():
    assert resolve_checkpoint("default") == DEFAULT_TEACHER
    spec = parse_player("ckpt:default@8")[0]
    assert spec.path == str(DEFAULT_TEACHER) and spec.options["simulations"] == 8
    assert spec.generation == load_checkpoint(DEFAULT_TEACHER)["generation"]


def test_a_run_initialised_from_the_default_teacher_trains_a_generation(tmp_path):
    teacher = load_checkpoint(DEFAULT_TEACHER)
    cfg = tiny_train_config(tmp_path, init_from="default")  # its tiny net config is replaced
    train(cfg)
    first = load_checkpoint(tmp_path / "checkpoints" / "ckpt-g000000.pt")
    assert first["net"] == teacher["net"]  # the teacher's architecture, not the config's tiny net
    weights = [k for k in teacher["model"] if "running_" not in k and "num_batches" not in k]
    moved = max((first["model"][k] - teacher["model"][k]).abs().max().item() for k in weights)
    assert 0 < moved < 0.05  # two small steps away from the teacher, not a fresh random network
    assert "initialised from" in (tmp_path / "train.log").read_text()


def test_init_from_a_missing_or_foreign_checkpoint_is_refused(tmp_path):
    cfg = TrainConfig(init_from=str(tmp_path / "nope.pt"), run_dir=str(tmp_path / "run"), progress=False)
    with pytest.raises(Exception, match="init_from: no checkpoint at"):
        train(cfg)
    with pytest.raises(CheckpointError, match="is for board size 6, the run plays size 8"):
        from tw_rl.training.checkpoint import initial_checkpoint

        initial_checkpoint("default", 8)
