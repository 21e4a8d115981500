"""Overlapped self-play: worker processes play while the learner trains, on one machine.

With ``selfplay.overlap_workers=N`` (N > 0) the training process starts N self-play processes
(``multiprocessing``, spawned; no Ray) and trains beside them instead of taking turns with
self-play; N = -1 is one process per core the run may use (``overlap_worker_count``). It is not
the default: on two cores it made about 1.9x the samples, but at 15 minutes a run its networks
were no stronger than taking turns (three pairs of runs, docs/results/2026-12-06.md).

- **Workers.** Each plays batches of ``selfplay.parallel_games`` games with the newest network
  the learner published (``<run_dir>/network.pt``, ``tw_rl.training.published``), checking for
  a newer one every ``RELOAD_S`` seconds between move batches (the weights are swapped in place;
  games in progress go on with them), and writes shards as games finish
  (``shard-g<published generation>-w<worker>-...``, so workers never pick the same name). (A
  stream that starts a new game in a finished game's slot was tried on 2026-12-05 and lost its
  one A/B; one pair of runs cannot tell such a change from run-to-run luck, see
  docs/results/2026-12-06.md.)
- **The learner** (``tw_rl.training.loop``, its ``SelfPlaySource`` here ``Overlapped``) takes
  gradient steps while the samples drawn stay within ``learner.sample_reuse`` times the new
  samples written, publishes the network every ``learner.steps_per_generation`` steps and writes
  a checkpoint and a metrics line then, so the run folder reads like a generational run's (one
  checkpoint per "generation"). Past ``max_minutes`` it stops the workers, takes the steps the
  samples they write while playing out are due (at most the rest of the generation), and the
  generation ends there. The workers, these processes or Ray actors (``OverlapPool`` in
  ``tw_rl.training.ray_selfplay``), answer the ``OverlapWorkers`` protocol.
- **Stopping.** ``stop()`` (the run's end, its time limit, an error or Ctrl-C) tells the workers
  to stop; each plays out its games in flight at one simulation a move and writes them
  (``tw_rl.training.selfplay``), then exits. A worker also exits when the training process is
  gone (it checks its parent), so a killed run leaves no self-play process behind.
- **CPU time.** Each worker keeps its own CPU time (``time.process_time``) in a slot of a shared
  array, updated whenever it looks for a newer network; ``cpu_seconds()`` adds them up (a
  restarted worker's last figure is kept), so the run can log the CPU time of all its
  processes (``time/cpu_hours``).
- **A killed worker** (ended by a signal: the OOM killer, a stray ``kill``) is started again, at
  most ``RESTARTS`` times in a run, with one line in the log; it loses only its games in flight
  (shards are written whole or not at all). A worker that ended by an error stops the run with
  that error.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np
import torch

from tw_rl.config import NetConfig, TrainConfig
from tw_rl.core.rules import Rules
from tw_rl.machine import usable_cores
from tw_rl.training.net import NetPolicyValue, TumbleweedNet, resolve_device
from tw_rl.training.published import load_newest, publish_network
from tw_rl.training.replay_buffer import ReplayWindow, write_shard
from tw_rl.training.run_clock import RunClock
from tw_rl.training.selfplay import play_games

RELOAD_S = 2.0  # a worker looks for a newer published network this often (between move batches)
JOIN_S = 120.0  # how long stop() waits for a worker to play out its games and exit
RESTARTS = 5  # how many killed workers a run starts again before it gives up

log = logging.getLogger(__name__)


def overlap_worker_count(cfg: TrainConfig) -> int:
    """The self-play processes a run starts beside its learner: ``selfplay.overlap_workers`` when
    it is 0 or more; for -1 (auto) one per core this process may use, when there are two or more,
    the network runs on the CPU and Ray is off (on Ray the generational loop's workers already
    take every CPU Ray offers; a GPU run and a one-core machine were never measured overlapped),
    else 0: self-play and learning take turns."""
    wanted = cfg.selfplay.overlap_workers
    if wanted >= 0:
        return wanted
    cores = usable_cores()
    on_cpu = resolve_device(cfg.device).type == "cpu"
    return cores if cores >= 2 and on_cpu and not cfg.ray.address else 0


class _Follower:
    """Called by ``play_games`` between move batches: swaps in a newer published network, reports
    the process's CPU time, and says whether to stop (``should_stop``)."""

    def __init__(
        self,
        run_dir: Path,
        net: TumbleweedNet,
        generation: int,
        should_stop: Callable[[], bool],
        report_cpu: Callable[[float], None],
    ):
        self.run_dir = run_dir
        self.net = net
        self.generation = generation
        self.should_stop = should_stop
        self.report_cpu = report_cpu
        self.checked = time.monotonic()

    def __call__(self) -> bool:
        if time.monotonic() - self.checked >= RELOAD_S:
            self.checked = time.monotonic()
            self.report_cpu(time.process_time())
            payload = load_newest(self.run_dir)
            if payload is not None and int(payload["generation"]) > self.generation:
                self.net.load_state_dict(payload["model"])
                self.generation = int(payload["generation"])
        return self.should_stop()


def play_until_stopped(
    cfg: TrainConfig,
    run_dir: str | Path,
    worker: int,
    should_stop: Callable[[], bool],
    report_cpu: Callable[[float], None],
) -> None:
    """One overlapped self-play worker's work, wherever it runs (a process here, a Ray actor in
    ``tw_rl.training.ray_selfplay``): games with the newest published network, shards as they
    finish, until ``should_stop()``; then the games in flight are played out and written.
    ``report_cpu(seconds)`` gets the process's CPU time now and then, and at the end."""
    torch.set_num_threads(max(cfg.threads, 1))
    run = Path(run_dir)
    board = cfg.board
    rules = Rules(board.size, board.variant, board.setup, board.stale_end)
    device = resolve_device(cfg.device)
    payload = None
    while payload is None:  # the learner publishes before it starts the workers
        if should_stop():
            return
        payload = load_newest(run)
        time.sleep(0.1 if payload is None else 0)
    net = TumbleweedNet(NetConfig(**payload["net"]), int(payload["size"])).to(device)
    net.load_state_dict(payload["model"])
    net.eval()
    policy_value = NetPolicyValue(net, rules, device, precision=cfg.precision, backend=cfg.backend)
    follower = _Follower(run, net, int(payload["generation"]), should_stop, report_cpu)
    parallel = cfg.selfplay.parallel_games
    batch = 0
    while not follower():
        rng = np.random.default_rng([cfg.seed, worker, follower.generation, batch, os.getpid()])

        def store(games: int, samples) -> None:
            write_shard(run / "selfplay", follower.generation, games, samples, worker=worker)

        play_games(
            rules,
            policy_value,
            cfg.search,
            parallel,
            parallel,
            rng,
            store,
            chunk_games=max(1, parallel // 4),
            stop=follower,
        )
        batch += 1
    report_cpu(time.process_time())  # the games played out after the stop count too


def _worker(cfg: TrainConfig, run_dir: str, worker: int, stop_event, parent: int, cpu) -> None:
    """One self-play process of this machine: plays until the stop event is set or the training
    process is gone; its CPU seconds go to ``cpu[worker]``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the learner, which stops the workers

    def should_stop() -> bool:
        return stop_event.is_set() or os.getppid() != parent

    def report_cpu(seconds: float) -> None:
        cpu[worker] = seconds

    play_until_stopped(cfg, run_dir, worker, should_stop, report_cpu)


class SelfPlayProcesses:
    """The self-play processes of an overlapped run (see the module docstring)."""

    def __init__(self, cfg: TrainConfig, run_dir: str | Path):
        self.context = multiprocessing.get_context("spawn")  # no forked torch or open files
        self.cfg, self.run_dir = cfg, str(run_dir)
        self.stop_event = self.context.Event()
        self.restarts = 0
        # CPU seconds of each worker process (written by the worker, lock-free: one writer a slot)
        self.cpu = self.context.Array("d", cfg.selfplay.overlap_workers, lock=False)
        self.cpu_banked = 0.0  # CPU seconds of workers that were killed and started again
        self.processes = [self._start(worker) for worker in range(cfg.selfplay.overlap_workers)]

    def _start(self, worker: int):
        process = self.context.Process(
            target=_worker,
            args=(self.cfg, self.run_dir, worker, self.stop_event, os.getpid(), self.cpu),
            name=f"tw-rl-selfplay-{worker}",
            daemon=True,
        )
        process.start()
        return process

    def check(self) -> None:
        """Start again a worker killed by a signal (at most ``RESTARTS`` in all); RuntimeError
        (one line) when a worker ended by an error, or too many were killed."""
        if self.stop_event.is_set():
            return
        for worker, process in enumerate(self.processes):
            code = process.exitcode
            if code is None:
                continue
            if code >= 0:
                raise RuntimeError(
                    f"self-play process {process.name} ended with exit code {code}; its error is above"
                )
            if self.restarts >= RESTARTS:
                raise RuntimeError(
                    f"self-play process {process.name} was killed (signal {-code}), and {RESTARTS} "
                    "killed workers were started again already; see the system log (out of memory?)"
                )
            self.restarts += 1
            self.cpu_banked += self.cpu[worker]  # its last report; up to RELOAD_S of it is lost
            self.cpu[worker] = 0.0
            log.warning(
                f"self-play process {process.name} was killed (signal {-code}); starting it again "
                f"({self.restarts} of at most {RESTARTS}); only its games in flight are lost"
            )
            self.processes[worker] = self._start(worker)

    def cpu_seconds(self) -> float:
        """CPU time of the self-play processes so far (seconds, as they last reported it)."""
        return self.cpu_banked + sum(self.cpu)

    def stop(self) -> None:
        """Tell the workers to stop and wait while they play out their games in flight."""
        self.stop_event.set()
        deadline = time.monotonic() + JOIN_S
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.terminate()
                process.join(5)

    def __enter__(self) -> SelfPlayProcesses:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class OverlapWorkers(Protocol):
    """The overlapped self-play workers of a run, as ``Overlapped`` drives them: started when made
    (after the first network is published), playing until ``stop``."""

    def check(self) -> None:
        """Replace a killed worker; RuntimeError (one line) for a worker that failed, or for too
        many replaced. Nothing once stopped."""
        ...

    def cpu_seconds(self) -> float:
        """The workers' CPU seconds so far (the replaced ones' included, as last reported)."""
        ...

    def stop(self) -> None:
        """Tell the workers to stop and wait while they play out and write their games in flight."""
        ...


class Overlapped:
    """``SelfPlaySource`` of an overlapped run (see the module docstring): the learner steps as the
    workers' samples arrive; each generation's end publishes the network for the workers."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, workers: OverlapWorkers, window: ReplayWindow):
        self.cfg, self.run_dir, self.workers, self.window = cfg, Path(run_dir), workers, window
        self.per_step = cfg.learner.batch_size / cfg.learner.sample_reuse  # new samples that earn a step
        self.base = window.arrived  # samples already on disk at the start are not new
        self.owed = 0  # steps taken in this process
        self.stopping = False  # the workers were told to stop (the time limit passed)
        self.arrived_before = (window.arrived, window.arrived_games)  # at the generation's start

    def play(self, generation: int, rng: np.random.Generator, clock: RunClock) -> tuple[dict, float]:
        self.arrived_before = (self.window.arrived, self.window.arrived_games)
        return {}, 1.0  # the workers play all along

    def step_due(self, window: ReplayWindow, taken: int, clock: RunClock) -> bool | None:
        if taken and taken % 10 == 0:
            window.refresh()
        while not clock.past_grace():
            if not self.stopping and clock.out_of_time():
                self.workers.stop()  # they play out their games in flight and write them
                self.stopping = True
                window.refresh()
            due = int((window.arrived - self.base) / self.per_step) - self.owed
            if due > 0 and len(window.samples or ()) >= self.cfg.learner.min_samples:
                self.owed += 1
                return True
            if self.stopping:
                return False
            self.workers.check()
            time.sleep(0.05)
            window.refresh()
        return False

    def generation_done(self, generation: int, net: TumbleweedNet, steps: int, seconds: float) -> dict:
        publish_network(self.run_dir, net, generation + 1)
        samples_before, games_before = self.arrived_before
        seconds = max(seconds, 1e-9)
        return {
            "selfplay/games": self.window.arrived_games - games_before,
            "selfplay/samples": self.window.arrived - samples_before,
            "perf/samples_per_s": (self.window.arrived - samples_before) / seconds,
            "perf/workers": self.cfg.selfplay.overlap_workers,
            "perf/train_steps_per_s": steps / seconds,
        }

    def cpu_seconds(self) -> float | None:
        return self.workers.cpu_seconds()
