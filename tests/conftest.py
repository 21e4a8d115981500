"""Test-wide settings and shared fixtures: one torch thread (the suite runs beside other work on
2 cores, where torch's thread pool spinning against a busy core is 50x slower) when torch is installed; the
`core` and `codecup` tests need neither torch nor anything else of the training stack. The
tiny trained run is built once per session (``tiny_trained_run``; ``tiny_run`` copies it)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

try:
    import torch
except ImportError:  # core/ and codecup/ tests run without torch
    torch = None

if torch is not None:
    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_trained_run(tmp_path_factory):
    """One real training run of a tiny network (2 generations: self-play shards, checkpoints,
    TensorBoard events, metrics), built once per test session for the tests that need a run."""
    from tw_rl.config import (
        LearnerConfig,
        NetConfig,
        SearchConfigSchema,
        SelfPlayConfig,
        TrainConfig,
        TrainingEvalConfig,
    )
    from tw_rl.training.loop import train

    run_dir = tmp_path_factory.mktemp("tiny") / "run"
    train(
        TrainConfig(
            net=NetConfig(name="tiny", blocks=1, channels=8, pool_every=1, head_channels=8),
            search=SearchConfigSchema(simulations=3, cheap_simulations=2, full_search_fraction=0.5),
            selfplay=SelfPlayConfig(games_per_generation=2, parallel_games=2),
            learner=LearnerConfig(batch_size=16, steps_per_generation=2, min_samples=8),
            eval=TrainingEvalConfig(every=1, games=2, simulations=2, opponents=["random"]),
            generations=2,
            run_dir=str(run_dir),
            device="cpu",
            threads=1,
            progress=False,
        )
    )
    return run_dir


@pytest.fixture
def tiny_run(tiny_trained_run, tmp_path):
    """A private copy of the tiny trained run (``tmp_path/run``), free to be written into."""
    return Path(shutil.copytree(tiny_trained_run, tmp_path / "run"))
