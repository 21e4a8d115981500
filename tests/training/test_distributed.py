"""Self-play and rating games on Ray: a local Ray run of the debug preset, a worker killed mid-run,
rating games as Ray tasks; and, without Ray, worker-named shards and the config checks."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from test_training import RULES, some_samples, tiny_config

from tw_rl import cli
from tw_rl.config import ConfigError, LearnerConfig
from tw_rl.training import loop
from tw_rl.training.checkpoint import save_checkpoint
from tw_rl.training.learner import Learner
from tw_rl.training.loop import train
from tw_rl.training.net import build_net
from tw_rl.training.published import publish_network
from tw_rl.training.replay_buffer import (
    SHARD_PATTERN,
    ReplayWindow,
    read_shard,
    shard_games,
    shard_paths,
    write_shard,
)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "train.py"


def run_train_script(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


# ------------------------------------------------------------------------- without Ray


def test_worker_shards_never_collide_and_count_with_the_others(tmp_path):
    samples = some_samples(4, np.random.default_rng(0))
    names = {write_shard(tmp_path, 3, 2, samples).name}
    for worker in (0, 1, 0, 12):
        names.add(write_shard(tmp_path, 3, 1, samples, worker=worker).name)
    assert len(names) == 5
    assert "shard-g000003-w012-0000-n1.npz" in names and "shard-g000003-w000-0001-n1.npz" in names
    assert shard_games(tmp_path, 3) == 6
    assert shard_games(tmp_path, 3, worker=0) == 2 and shard_games(tmp_path, 3, worker=None) == 2
    assert len(shard_paths(tmp_path, 3, worker=12)) == 1 and shard_games(tmp_path, 4) == 0
    window = ReplayWindow(tmp_path, 1000)
    assert window.refresh() == 5 * len(samples)


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda c: setattr(c.selfplay, "workers", 2), "needs Ray: set ray.address"),
        (lambda c: setattr(c.selfplay, "workers", -1), "selfplay.workers"),
        (lambda c: setattr(c.ray, "address", "local") or setattr(c.ray, "cpus_per_worker", 0.0), "cpus_per"),
        (
            lambda c: (
                setattr(c.ray, "address", "local")
                or setattr(c.selfplay, "workers", 2)
                or setattr(c.selfplay, "overlap_workers", 2)
            ),
            "overlapped on Ray, selfplay.overlap_workers=2 is the number of actors",
        ),
    ],
)
def test_ray_settings_are_checked_before_anything_runs(tmp_path, change, message):
    cfg = tiny_config(tmp_path / "run", 1)
    change(cfg)
    with pytest.raises(ConfigError, match=message):
        loop.train(cfg)
    assert not (tmp_path / "run").exists()


def test_a_ray_address_without_ray_installed_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setattr(loop, "ray_installed", lambda: False)
    cfg = tiny_config(tmp_path / "run", 1)
    cfg.ray.address = "local"
    with pytest.raises(ConfigError, match=r"pip install -e '\.\[ray\]'"):
        loop.train(cfg)


# ---------------------------------------------------------------------------- with Ray


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray (2 CPUs) for the in-process tests of this module; tw_rl uses it as found."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield ray
    ray.shutdown()


def test_a_local_ray_run_of_the_debug_preset_with_two_workers(tmp_path):
    pytest.importorskip("ray")
    run = tmp_path / "run"
    result = run_train_script(
        ["debug=default", "device=cpu", "ray.address=local", "selfplay.workers=2", f"hydra.run.dir={run}"]
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert sorted(p.name for p in (run / "checkpoints").glob("*.pt")) == [
        "ckpt-g000000.pt",
        "ckpt-g000001.pt",
    ]
    for generation in (0, 1):  # the debug preset's 2 games per generation, one per worker
        assert shard_games(run / "selfplay", generation) == 2
        assert shard_games(run / "selfplay", generation, worker=0) == 1
        assert shard_games(run / "selfplay", generation, worker=1) == 1
    lines = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [m["generation"] for m in lines] == [0, 1]
    assert all(m["perf/workers"] == 2 and m["selfplay/samples"] > 0 for m in lines)
    assert lines[-1]["train/step"] > 0 and (run / "network.pt").exists()
    # The folder is an ordinary run folder: the one-process loop resumes it.
    result = run_train_script(["debug=default", "device=cpu", "generations=3", f"hydra.run.dir={run}"])
    assert result.returncode == 0, result.stderr[-3000:]
    lines = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [m["generation"] for m in lines] == [0, 1, 2] and "perf/workers" not in lines[-1]
    assert lines[-1]["train/replay_samples"] == sum(
        len(read_shard(p)) for p in (run / "selfplay").glob("*.npz")
    )


def test_a_killed_worker_loses_no_complete_shard(tmp_path, local_ray):
    from tw_rl.training.ray_selfplay import open_pool  # needs Ray

    cfg = tiny_config(tmp_path, 1)
    cfg.ray.address = "local"
    cfg.selfplay.workers = 2
    cfg.selfplay.games_per_generation = 12  # 6 per worker, 2 at a time, a shard per finished game
    folder = tmp_path / "selfplay"
    net = build_net(cfg.net, cfg.board.size)
    seen: dict[str, bytes] = {}  # the complete shards when worker 1 was killed, by content

    def kill_worker_one_after_its_first_shard(pid: int) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not shard_paths(folder, 0, worker=1):
            time.sleep(0.02)
        os.kill(pid, signal.SIGKILL)
        for path in shard_paths(folder, 0):
            seen[path.name] = path.read_bytes()

    with open_pool(cfg, tmp_path) as pool:
        victim = pool.pid(1)
        killer = threading.Thread(target=kill_worker_one_after_its_first_shard, args=(victim,))
        killer.start()
        with pytest.warns(UserWarning, match="self-play worker 1 died .*; worker 2 takes its place"):
            result = pool.play_generation(net, 0, cfg.selfplay.games_per_generation)
        killer.join()
        assert sorted(pool.actors) == [0, 2] and pool.pid(2) != victim
    written = len([name for name in seen if "-w001-" in name])  # by worker 1 before it died
    assert written >= 1 and result.restarts == 1
    assert result.lost_games == 6 - written  # exactly the games it was still playing
    for name, content in seen.items():  # every shard complete at the kill is still there, unchanged
        assert (folder / name).read_bytes() == content
    assert shard_games(folder, 0) == 12  # the lost games were played again, by worker 2
    assert shard_games(folder, 0, worker=2) == 6 - written and shard_games(folder, 0, worker=1) == written
    assert result.stats.games == 12 - written  # the stats of the tasks that finished
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a damaged or half-written shard would warn
        window = ReplayWindow(folder, 10**6)
        assert window.refresh() == sum(len(read_shard(p)) for p in folder.glob("shard-*.npz"))


def test_a_worker_past_the_time_limit_plays_out_its_games_and_stops(tmp_path):
    """A worker whose task runs past the run's deadline starts no new game and writes the games
    it had in flight (the worker class in this process; on Ray it is the same code)."""
    pytest.importorskip("ray")
    from tw_rl.training.ray_selfplay import SelfPlayWorker, publish_network

    cfg = tiny_config(tmp_path, 1)
    cfg.search.full_search_fraction = 1.0
    publish_network(tmp_path, build_net(cfg.net, cfg.board.size), 0)
    stats, _ = SelfPlayWorker(cfg, str(tmp_path), 0).play(0, 6, [0], deadline=time.time())
    assert stats.stopped_early and stats.games == 2  # the two in flight, of six asked
    assert shard_games(tmp_path / "selfplay", 0, worker=0) == 2


def test_the_pool_hands_out_no_task_past_the_time_limit(tmp_path, local_ray):
    from tw_rl.training.ray_selfplay import open_pool  # needs Ray

    cfg = tiny_config(tmp_path, 1)
    cfg.ray.address = "local"
    cfg.selfplay.workers = 1
    with open_pool(cfg, tmp_path) as pool:
        net = build_net(cfg.net, cfg.board.size)
        result = pool.play_generation(net, 0, 4, deadline=time.time() - 1)
    assert (result.tasks, result.stats.games, shard_games(tmp_path / "selfplay", 0)) == (0, 0, 0)


def overlapped_on_ray(run_dir, generations: int):
    cfg = tiny_config(run_dir, generations)
    cfg.ray.address = "local"
    cfg.selfplay.overlap_workers = 2
    cfg.learner.steps_per_generation = 3
    cfg.learner.sample_reuse = 2.0
    cfg.arena.every = 0
    return cfg


def test_an_overlapped_run_on_ray_trains_while_its_actors_play(tmp_path, local_ray):
    cfg = overlapped_on_ray(tmp_path, 2)
    cpu_before = time.process_time()
    metrics = train(cfg)
    learner_cpu_s = time.process_time() - cpu_before  # this process only: the actors are others
    assert metrics["generation"] == 1 and metrics["train/step"] == 6
    shards = (tmp_path / "selfplay").glob("*.npz")
    assert {int(SHARD_PATTERN.search(p.name).group("worker")) for p in shards} == {0, 1}
    window = ReplayWindow(tmp_path / "selfplay", 10**6, 6)
    window.refresh()
    # The learner drew at most sample_reuse gradient samples per new sample (a step's batch of slack).
    assert 6 * cfg.learner.batch_size <= cfg.learner.sample_reuse * window.arrived
    lines = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [m["generation"] for m in lines] == [0, 1] and all(m["perf/workers"] == 2 for m in lines)
    # The actors' CPU time is asked for and counted with the learner's.
    assert lines[1]["time/cpu_hours"] > lines[0]["time/cpu_hours"] > 0
    assert lines[1]["time/cpu_hours"] * 3600 > learner_cpu_s
    assert local_ray.is_initialized()  # the run used the Ray it found and left it running


def test_a_dead_overlapped_actor_is_replaced_and_its_shards_stay(tmp_path, local_ray):
    from tw_rl.training.ray_selfplay import OverlapPool  # needs Ray

    cfg = overlapped_on_ray(tmp_path, 1)
    cfg.selfplay.overlap_workers = 1
    publish_network(tmp_path, build_net(cfg.net, cfg.board.size), 0)
    folder = tmp_path / "selfplay"
    with OverlapPool(cfg, tmp_path) as pool:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not shard_paths(folder, 0, worker=0):
            time.sleep(0.05)
        kept = {p.name: p.read_bytes() for p in shard_paths(folder, 0, worker=0)}
        victim = pool.pid(0)
        os.kill(victim, signal.SIGKILL)
        with pytest.warns(UserWarning, match="self-play worker 0 died .*; worker 1 takes its place"):
            while time.monotonic() < deadline and 1 not in pool.running:
                pool.check()
                time.sleep(0.05)
        assert sorted(pool.running) == [1] and pool.pid(1) != victim
        while time.monotonic() < deadline and not shard_paths(folder, 0, worker=1):
            pool.check()  # the new actor plays on
            time.sleep(0.05)
        assert shard_paths(folder, 0, worker=1)
        assert pool.cpu_seconds() > 0
    for name, content in kept.items():  # what the dead actor wrote is still there, unchanged
        assert (folder / name).read_bytes() == content


def test_an_overlapped_actor_that_fails_stops_the_run_in_one_line(tmp_path, local_ray):
    from tw_rl.training.ray_selfplay import OverlapPool  # needs Ray

    cfg = overlapped_on_ray(tmp_path, 1)
    cfg.selfplay.overlap_workers = 1
    publish_network(tmp_path, build_net(cfg.net, cfg.board.size), 0)
    payload = torch.load(tmp_path / "network.pt", weights_only=True)
    payload["net"] = {**payload["net"], "no_such_setting": 1}  # the actor cannot build this network
    torch.save(payload, tmp_path / "network.pt")
    with OverlapPool(cfg, tmp_path) as pool:
        deadline = time.monotonic() + 60
        with pytest.raises(RuntimeError, match=r"^self-play worker 0 failed: .+") as caught:
            while time.monotonic() < deadline:
                pool.check()
                time.sleep(0.05)
    assert "\n" not in str(caught.value)


def test_rating_games_run_as_ray_tasks(tmp_path, capsys, local_ray):
    run = tmp_path / "run"  # one untrained checkpoint of the tiny net
    torch.manual_seed(0)
    learner = Learner(build_net(tiny_config(run, 1).net, 6), RULES, LearnerConfig(), torch.device("cpu"))
    save_checkpoint(run / "checkpoints", 0, learner.checkpoint(0, {}))
    db = tmp_path / "arena" / "results.sqlite"
    args = ["rate", "--players", f"ckpt:{run}/checkpoints@1", "greedy", "--games", "12"]
    args += ["--batch-size", "2", "--jobs", "2", "--ray-address", "local", "--threads", "1"]
    args += ["--db", str(db), "--out", str(tmp_path / "arena"), "--no-progress", "--no-tensorboard"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "12 games played, 12 stored" in out and "run/g0@1" in out and "greedy" in out
    assert local_ray.is_initialized()  # the rating run used the Ray it found and left it running
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT * FROM games ORDER BY id").fetchall()
    assert len(rows) == 12 and {r["source"] for r in rows} == {"batched"}
    slots = [(r["red"], r["white"], r["opening"]) for r in rows]
    assert len(set(slots)) == len(slots)  # no slot played twice
    per_pair: dict[tuple[int, int], list[int]] = {}
    for r in rows:
        per_pair.setdefault(tuple(sorted((r["red"], r["white"]))), []).append(r["red"])
    for pair, reds in per_pair.items():  # colours balanced in every pairing
        assert abs(reds.count(pair[0]) - reds.count(pair[1])) <= 1
