"""Overlapped self-play (selfplay.overlap_workers): worker processes play while the learner
trains; the run folder is an ordinary one (the generational loop resumes it), the learner keeps
to its ratio of gradient samples to new samples, a time limit stops workers and learner, and a
kill of a worker or of the learner loses nothing but games in flight."""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_training import tiny_config

from tw_rl.config import ConfigError
from tw_rl.referee.process import proc_stat
from tw_rl.reliability.audits import check_run
from tw_rl.reliability.kills import TRAIN_OVERRIDES, TRAIN_SCRIPT
from tw_rl.training.checkpoint import load_checkpoint
from tw_rl.training.loop import train
from tw_rl.training.net import build_net
from tw_rl.training.overlap import SelfPlayProcesses
from tw_rl.training.published import publish_network
from tw_rl.training.replay_buffer import SHARD_PATTERN, ReplayWindow
from tw_rl.training.run_totals import run_totals


def overlapped(run_dir, generations: int):
    cfg = tiny_config(run_dir, generations)
    cfg.selfplay.overlap_workers = 1
    cfg.learner.steps_per_generation = 3
    cfg.learner.sample_reuse = 2.0
    cfg.arena.opponents = ["random"]
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
    # The CPU time of the learner and its worker, summed across generations and resumes.
    assert 0 < lines[0]["time/cpu_hours"] < lines[1]["time/cpu_hours"]
    assert run_totals(tmp_path)["cpu_hours"] == lines[1]["time/cpu_hours"]
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
        (lambda c: setattr(c.selfplay, "overlap_workers", -2), "selfplay.overlap_workers must be -1"),
        (lambda c: setattr(c.learner, "sample_reuse", 0.0), "learner.sample_reuse"),
        # Overlapped on Ray (tests/training/test_distributed.py) goes through Ray's own checks.
        (lambda c: setattr(c.ray, "address", "local") or setattr(c.ray, "cpus_per_worker", 0.0), "cpus_per"),
    ],
)
def test_bad_overlap_settings_are_refused(tmp_path, change, message):
    cfg = overlapped(tmp_path / "run", 1)
    change(cfg)
    with pytest.raises(ConfigError, match=message):
        train(cfg)
    assert not (tmp_path / "run").exists()  # refused before anything ran


def shard_names(run_dir) -> set[str]:
    return {p.name for p in (Path(run_dir) / "selfplay").glob("shard-*.npz")}


def test_the_workers_report_their_cpu_time(tmp_path):
    cfg = overlapped(tmp_path, 1)
    publish_network(tmp_path, build_net(cfg.net, cfg.board.size), 0)
    before = children_cpu_seconds()
    with SelfPlayProcesses(cfg, tmp_path) as workers:
        deadline = time.monotonic() + 300
        while not list((tmp_path / "selfplay").glob("shard-*.npz")) and time.monotonic() < deadline:
            workers.check()
            time.sleep(0.05)
    assert list((tmp_path / "selfplay").glob("shard-*.npz")), "the worker wrote no shard"
    # The learner played nothing here: the figure is the worker's own, reported before it exited,
    # so no more than what the system counted for this process's ended children.
    assert 0 < workers.cpu_seconds() <= children_cpu_seconds() - before


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_a_killed_worker_is_started_again_and_keeps_what_it_wrote(tmp_path, caplog):
    cfg = overlapped(tmp_path, 3)
    cfg.learner.sample_reuse = 1.0  # 9 steps need 144 new samples: the kill comes before the end
    killed: list[set[str]] = []  # the shards on disk once the killed worker was dead

    def kill_the_first_worker_after_its_first_shard() -> None:
        deadline = time.monotonic() + 300
        while not killed and time.monotonic() < deadline:
            written = shard_names(tmp_path) if (tmp_path / "selfplay").is_dir() else set()
            workers = [p for p in multiprocessing.active_children() if p.name.startswith("tw-rl-selfplay")]
            if written and workers:
                os.kill(workers[0].pid, signal.SIGKILL)
                while alive(workers[0].pid) and time.monotonic() < deadline:
                    time.sleep(0.01)
                killed.append(shard_names(tmp_path))
            time.sleep(0.02)

    killer = threading.Thread(target=kill_the_first_worker_after_its_first_shard, daemon=True)
    killer.start()
    with caplog.at_level(logging.WARNING, logger="tw_rl.training.overlap"):
        metrics = train(cfg)
    killer.join(5)
    assert killed, "no worker was seen to kill"
    assert metrics["generation"] == 2 and metrics["train/step"] == 9
    assert "was killed (signal 9); starting it again (1 of at most" in caplog.text
    after = shard_names(tmp_path)
    assert killed[0] <= after  # what it wrote before the kill is kept
    assert after - killed[0]  # the worker started again (the only one left) wrote shards of its own
    assert check_run(tmp_path, generations=4, games=10**6, final=False) == []


def child_pids(pid: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        fields = proc_stat(int(entry.name)) if entry.name.isdigit() else None
        if fields is not None and int(fields[1]) == pid:
            children.append(int(entry.name))
    return children


def alive(pid: int) -> bool:
    fields = proc_stat(pid)
    return fields is not None and fields[0] != b"Z"


def test_a_killed_learner_leaves_no_worker_behind_and_the_same_command_resumes(tmp_path):
    run = tmp_path / "run"
    command = [
        sys.executable,
        str(TRAIN_SCRIPT),
        *TRAIN_OVERRIDES,
        "selfplay.overlap_workers=1",
        "learner.steps_per_generation=3",
        "learner.sample_reuse=2",
        "generations=3",
        f"hydra.run.dir={run}",
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with open(tmp_path / "first.log", "wb") as out:
        learner = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        workers: list[int] = []
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and learner.poll() is None:
            workers = workers or [p for p in child_pids(learner.pid) if alive(p)]
            if workers and (run / "checkpoints" / "ckpt-g000000.pt").exists():
                break
            time.sleep(0.05)
        assert learner.poll() is None, (tmp_path / "first.log").read_text()
        assert workers, "the learner started no self-play process"
        learner.send_signal(signal.SIGKILL)
        learner.wait()
    deadline = time.monotonic() + 120
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in workers), "a self-play process outlived its learner"
    assert check_run(run, generations=4, games=10**6, final=False) == []
    before = shard_names(run)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "resumed from" in (run / "train.log").read_text()
    assert before <= shard_names(run)
    assert check_run(run, generations=4, games=10**6, final=False) == []
    assert sorted(p.name for p in (run / "checkpoints").glob("*.pt"))[-1] == "ckpt-g000002.pt"
    logged = [json.loads(x)["generation"] for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert logged == sorted(set(logged)) and logged[-1] == 2


def test_auto_is_one_worker_per_core_of_a_cpu_machine_without_ray(tmp_path, monkeypatch):
    from tw_rl.training import overlap

    cfg = tiny_config(tmp_path / "run", 1)
    cfg.selfplay.overlap_workers = -1
    for cores, address, device, workers in (
        (2, "", "cpu", 2),
        (16, "", "cpu", 16),
        (1, "", "cpu", 0),  # one core: self-play and learning take turns
        (4, "local", "cpu", 0),  # on Ray the generational loop's workers take the CPUs
        (4, "", "meta", 0),  # not the CPU: never measured overlapped
    ):
        monkeypatch.setattr(overlap, "usable_cores", lambda cores=cores: cores)
        cfg.ray.address, cfg.device = address, device
        assert overlap.overlap_worker_count(cfg) == workers, (cores, address, device)
    cfg.ray.address, cfg.device = "", "cpu"
    cfg.selfplay.overlap_workers = 3  # a number is taken as it is
    assert overlap.overlap_worker_count(cfg) == 3


def test_a_run_records_the_worker_count_auto_gave_it(tmp_path, monkeypatch):
    from tw_rl.training import overlap

    monkeypatch.setattr(overlap, "usable_cores", lambda: 1)
    cfg = tiny_config(tmp_path, 1)
    cfg.selfplay.overlap_workers = -1
    train(cfg)
    assert json.loads((tmp_path / "config.json").read_text())["selfplay"]["overlap_workers"] == 0
    log = (tmp_path / "train.log").read_text()
    assert "selfplay.overlap_workers=-1: self-play and learning take turns" in log
