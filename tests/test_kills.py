"""Kills at every stage (issue 15): a training run, ``tw-rl evaluate`` and ``tw-rl export --run``
are SIGKILLed and started again; nothing is lost, counted twice or left half-written.

The machinery is ``scripts/kill_test.py`` (which also runs longer series by hand). The normal
suite kills a tiny training run at four chosen points (half-way through a shard, a checkpoint
written but not yet renamed, between the two arena matches, half-way through a metrics line);
``-m slow`` adds random kills of training, evaluation and export.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def kill_test_module():
    spec = importlib.util.spec_from_file_location("kill_test_script", ROOT / "scripts" / "kill_test.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def kill_test():
    return kill_test_module()


def test_training_killed_at_chosen_points_completes_whole(kill_test, tmp_path):
    lines = []
    plan = [("shard-mid", 2), ("checkpoint-late", 1), ("arena", 2), ("metrics-mid", 1)]
    problems = kill_test.kill_train(tmp_path, 0, random.Random(0), plan=plan, log=lines.append, generations=2)
    assert problems == [], "\n".join(lines)
    assert sum("killed" in line for line in lines) == len(plan), "\n".join(lines)
    log = (tmp_path / "rounds.log").read_text()
    assert "dropped a cut-off last line" in log  # the metrics line cut by the kill
    assert "(finished after the resume)" in log  # generation 0's arena, killed, done on resume


def test_check_run_finds_what_a_kill_could_break(kill_test, tiny_run):
    """The checker has teeth: a shard over its generation's count, a cut-off metrics line, a
    damaged checkpoint and a leftover temporary file are each reported."""
    assert kill_test.check_run(tiny_run, 2, 2, final=True) == []
    shards = sorted((tiny_run / "selfplay").glob("shard-g000001-*.npz"))
    (tiny_run / "selfplay" / shards[0].name.replace("-0000-", "-0009-")).write_bytes(shards[0].read_bytes())
    with open(tiny_run / "metrics.jsonl", "a") as handle:
        handle.write('{"generation": 1, "trai')
    checkpoint = tiny_run / "checkpoints" / "ckpt-g000001.pt"
    checkpoint.write_bytes(checkpoint.read_bytes()[:1000])
    (tiny_run / "selfplay" / ".shard-g000001-0001-n1.npz.abcd1234.tmp").write_bytes(b"x")
    problems = "\n".join(kill_test.check_run(tiny_run, 2, 2, final=True))
    assert "generation 1: 3 games stored" in problems
    assert "cut-off line" in problems
    assert "ckpt-g000001.pt: does not load with weights_only=True" in problems
    assert "temporary files left" in problems


@pytest.mark.slow
def test_training_survives_random_kills(kill_test, tmp_path):
    lines = []
    problems = kill_test.kill_train(tmp_path, 30, random.Random(15), log=lines.append)
    assert problems == [], "\n".join(lines)


@pytest.mark.slow
def test_evaluate_survives_kills(kill_test, tmp_path):
    lines = []
    problems = kill_test.kill_evaluate(tmp_path, 6, random.Random(15), games=24, log=lines.append)
    assert problems == [], "\n".join(lines)


@pytest.mark.slow
def test_export_survives_kills(kill_test, tiny_trained_run, tmp_path):
    lines = []
    problems = kill_test.kill_export(tmp_path, tiny_trained_run, 6, random.Random(15), log=lines.append)
    assert problems == [], "\n".join(lines)
