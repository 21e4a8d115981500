"""Overlapped self-play (selfplay.overlap_workers): worker processes play while the learner
trains; the run folder is an ordinary one (the generational loop resumes it), the learner keeps
to its ratio of gradient samples to new samples, and a time limit stops workers and learner."""

from __future__ import annotations

import json

import pytest
from test_training import tiny_config

from tw_rl.config import ConfigError
from tw_rl.training.checkpoint import load_checkpoint
from tw_rl.training.loop import train
from tw_rl.training.replay_buffer import SHARD_PATTERN, ReplayWindow


def overlapped(run_dir, generations: int):
    cfg = tiny_config(run_dir, generations)
    cfg.selfplay.overlap_workers = 1
    cfg.learner.steps_per_generation = 3
    cfg.learner.sample_reuse = 2.0
    cfg.eval.opponents = ["random"]
    return cfg


def test_an_overlapped_run_trains_publishes_and_is_resumed_by_the_generational_loop(tmp_path):
    cfg = overlapped(tmp_path, 2)
    metrics = train(cfg)
    assert metrics["generation"] == 1 and metrics["train/step"] == 6
    assert sorted(p.name for p in (tmp_path / "checkpoints").glob("*.pt")) == [
        "ckpt-g000000.pt",
        "ckpt-g000001.pt",
    ]
    shards = list((tmp_path / "selfplay").glob("shard-*.npz"))
    assert shards and all(SHARD_PATTERN.search(p.name).group("worker") == "000" for p in shards)
    window = ReplayWindow(tmp_path / "selfplay", 10**6, 6)
    window.refresh()
    # The learner drew at most sample_reuse gradient samples per new sample (a step's batch of slack).
    assert 6 * cfg.learner.batch_size <= cfg.learner.sample_reuse * window.arrived
    lines = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [m["generation"] for m in lines] == [0, 1] and all(m["perf/workers"] == 1 for m in lines)
    assert "arena/vs_random" in lines[1]
    assert (tmp_path / "network.pt").stat().st_size > 0
    # Today's generational loop reads the folder and goes on from it.
    cfg = overlapped(tmp_path, 3)
    cfg.selfplay.overlap_workers = 0
    metrics = train(cfg)
    assert metrics["generation"] == 2 and load_checkpoint(tmp_path / "checkpoints" / "ckpt-g000002.pt")
    assert "perf/workers" not in metrics


def test_an_overlapped_run_stops_at_its_time_limit_and_resumes(tmp_path):
    cfg = overlapped(tmp_path, 50)
    cfg.max_minutes = 1e-6
    metrics = train(cfg)
    assert metrics["generation"] == 0 and metrics["selfplay/partial"] is True
    assert (tmp_path / "checkpoints" / "ckpt-g000000.pt").exists()
    assert "the same command resumes" in (tmp_path / "train.log").read_text()
    cfg.max_minutes = 0.0
    cfg.generations = 2
    assert train(cfg)["generation"] == 1


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda c: setattr(c.selfplay, "overlap_workers", -1), "selfplay.overlap_workers"),
        (lambda c: setattr(c.learner, "sample_reuse", 0.0), "learner.sample_reuse"),
        (lambda c: setattr(c.ray, "address", "local"), "choose one"),
    ],
)
def test_bad_overlap_settings_are_refused(tmp_path, change, message):
    cfg = overlapped(tmp_path / "run", 1)
    change(cfg)
    with pytest.raises(ConfigError, match=message):
        train(cfg)
    assert not (tmp_path / "run").exists()  # refused before anything ran
