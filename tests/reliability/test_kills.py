"""Kills at every stage (issue 15): a training run, ``tw-rl rate`` and ``tw-rl export --run``
are SIGKILLed and started again; nothing is lost, counted twice or left half-written.

The machinery is ``tw_rl.reliability.kills`` and its audits (``scripts/kill_test.py`` runs longer
series by hand and installs a training kill point in the child). The normal
suite kills a tiny training run at four chosen points (half-way through a shard, a checkpoint
written but not yet renamed, between the two arena matches, half-way through a metrics line);
``-m slow`` adds random kills of training, rating and export.
"""

from __future__ import annotations

import random

import pytest

from tw_rl.reliability import audits, kills


def test_training_killed_at_chosen_points_completes_whole(tmp_path):
    lines = []
    plan = [("shard-mid", 2), ("checkpoint-late", 1), ("arena", 2), ("metrics-mid", 1)]
    problems = kills.kill_train(tmp_path, 0, random.Random(0), plan=plan, log=lines.append, generations=2)
    assert problems == [], "\n".join(lines)
    assert sum("killed" in line for line in lines) == len(plan), "\n".join(lines)
    log = (tmp_path / "rounds.log").read_text()
    assert "dropped a cut-off last line" in log  # the metrics line cut by the kill
    assert "(finished after the resume)" in log  # generation 0's arena, killed, done on resume


def test_check_run_finds_what_a_kill_could_break(tiny_run):
    """The checker has teeth: a shard over its generation's count, a cut-off metrics line, a
    damaged checkpoint and a leftover temporary file are each reported."""
    assert audits.check_run(tiny_run, 2, 2, final=True) == []
    shards = sorted((tiny_run / "selfplay").glob("shard-g000001-*.npz"))
    (tiny_run / "selfplay" / shards[0].name.replace("-0000-", "-0009-")).write_bytes(shards[0].read_bytes())
    with open(tiny_run / "metrics.jsonl", "a") as handle:
        handle.write('{"generation": 1, "trai')
    checkpoint = tiny_run / "checkpoints" / "ckpt-g000001.pt"
    checkpoint.write_bytes(checkpoint.read_bytes()[:1000])
    (tiny_run / "selfplay" / ".shard-g000001-0001-n1.npz.abcd1234.tmp").write_bytes(b"x")
    problems = "\n".join(audits.check_run(tiny_run, 2, 2, final=True))
    assert "generation 1: 3 games stored" in problems
    assert "cut-off line" in problems
    assert "ckpt-g000001.pt: does not load with weights_only=True" in problems
    assert "temporary files left" in problems


@pytest.mark.slow
def test_training_survives_random_kills(tmp_path):
    lines = []
    problems = kills.kill_train(tmp_path, 30, random.Random(15), log=lines.append)
    assert problems == [], "\n".join(lines)


@pytest.mark.slow
def test_rating_survives_kills(tmp_path):
    lines = []
    problems = kills.kill_rate(tmp_path, 6, random.Random(15), games=24, log=lines.append)
    assert problems == [], "\n".join(lines)


@pytest.mark.slow
def test_export_survives_kills(tiny_trained_run, tmp_path):
    lines = []
    problems = kills.kill_export(tmp_path, tiny_trained_run, 6, random.Random(15), log=lines.append)
    assert problems == [], "\n".join(lines)


def test_check_results_db_finds_what_a_kill_could_break(tmp_path):
    """The database audit (through ResultsDB, no SQL of its own): a game that does not replay to
    its stored points and a count off the budget are reported; a sound database passes."""
    from tw_rl.rating.results_db import GameRow, Identity, ResultsDB

    path = tmp_path / "r.sqlite"
    assert audits.check_results_db(path, None) == [] and audits.count_games(path) == 0
    with ResultsDB(path) as db:
        a = db.register(Identity("baseline", label="random"), "random").id
        b = db.register(Identity("baseline", label="greedy"), "greedy").id
        db.add_game(GameRow(a, b, 6, 0, 0, "C3", "I9", 1.0, 300, 100, "end rule", "D4", 1, "batched"))
    problems = "\n".join(audits.check_results_db(path, 2))
    assert "game 1: replays to" in problems and "1 games stored, the budget is 2" in problems
    assert audits.count_games(path) == 1
