"""Test-wide settings and shared fixtures: one torch thread (the suite runs beside other work on
2 cores, where torch's thread pool spinning against a busy core is 50x slower) when torch is installed; the
`core` and `codecup` tests need neither torch nor anything else of the training stack. The
tiny trained run is built once per session (``tiny_trained_run``; ``tiny_run`` copies it)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # a bare environment for the core/codecup tests: no property tests there
    settings = None

# Hypothesis profiles. ``ci`` (the default): derandomized, so every run draws the same examples
# (a failure is reproducible and a pass means the same thing twice), no example database, no
# deadline (a shared 2-core machine), 40 examples per property. ``long``, for a local search
# for counterexamples: random draws, 2,000 examples per property, failures kept in the database:
#     HYPOTHESIS_PROFILE=long python -m pytest tests/core/test_core_properties.py
# Property tests leave max_examples and deadline to the profile.
if settings is not None:
    settings.register_profile(
        "ci", derandomize=True, database=None, deadline=None, max_examples=40, print_blob=True
    )
    settings.register_profile(
        "long",
        deadline=None,
        max_examples=2000,
        suppress_health_check=[HealthCheck.too_slow],
        print_blob=True,
    )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

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
    from helpers import tiny_train_config

    from tw_rl.config import ArenaConfig
    from tw_rl.training.loop import train

    run_dir = tmp_path_factory.mktemp("tiny") / "run"
    arena_cfg = ArenaConfig(every=1, games=2, simulations=2, opponents=["random"])
    train(tiny_train_config(run_dir, arena=arena_cfg, generations=2))
    return run_dir


@pytest.fixture
def tiny_run(tiny_trained_run, tmp_path):
    """A private copy of the tiny trained run (``tmp_path/run``), free to be written into."""
    return Path(shutil.copytree(tiny_trained_run, tmp_path / "run"))
