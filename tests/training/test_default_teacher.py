"""The teacher shipped in the package: loads without pickle, plays legal games, and is what
``default`` means for the rating, the export and ``init_from``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
from tw_rl.training.run_totals import run_totals

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


def test_a_candidate_teacher_ships_elsewhere_with_its_card_and_leaves_the_default_alone(tmp_path):
    cfg = tiny_train_config(tmp_path / "run", init_from="default")
    train(cfg)
    default_before = DEFAULT_TEACHER.read_bytes()
    out = tmp_path / "teacher-next.pt"
    script = Path(__file__).resolve().parents[2] / "scripts" / "ship_teacher.py"
    checkpoint = tmp_path / "run" / "checkpoints" / "ckpt-g000000.pt"
    done = subprocess.run(
        [sys.executable, str(script), str(checkpoint), "--out", str(out), "--note", "a test run"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert load_checkpoint(out)["generation"] == 0 and DEFAULT_TEACHER.read_bytes() == default_before
    card = out.with_suffix(".md").read_text()
    assert card.startswith("# Teacher candidate `teacher-next.pt`")
    assert "started from `init_from=default`" in card and f"init_from={out}` continues it" in card
    totals = run_totals(tmp_path / "run")
    assert f"{totals['games']:,} games" in card and "- a test run" in card


def test_run_totals_pass_over_a_cut_off_line_and_stop_at_a_generation(tmp_path):
    rows = [
        {
            "generation": g,
            "selfplay/games": 10,
            "selfplay/samples": 100,
            "train/step": 5 * (g + 1),
            "time/run_minutes": 1.5 * (g + 1),
            "time/cpu_hours": 0.5 * (g + 1),
        }
        for g in range(3)
    ]
    text = "".join(json.dumps(row) + "\n" for row in rows) + '{"generation": 3, "selfpl'
    (tmp_path / "metrics.jsonl").write_text(text)
    assert run_totals(tmp_path) == {
        "generations": 3,
        "games": 30,
        "samples": 300,
        "steps": 15,
        "run_minutes": 4.5,
        "cpu_hours": 1.5,
        "cpu_hours_partial": False,
        "selfplay_seconds": 0.0,
    }
    assert run_totals(tmp_path, up_to=1)["games"] == 20 and run_totals(tmp_path / "none")["generations"] == 0
    # A run whose first stretch predates time/cpu_hours: its total is marked partial.
    del rows[0]["time/cpu_hours"]
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    totals = run_totals(tmp_path)
    assert totals["cpu_hours"] == 1.5 and totals["cpu_hours_partial"] is True
