"""Self-play on Ray: worker actors play a generation's games into the run folder for the learner.

``tw_rl.training.loop.train`` imports this module only when ``ray.address`` is set; the loop itself is
unchanged (self-play of a generation, training, checkpoint, arena), only self-play moves
out of the training process:

- **Publishing.** Before a generation's self-play the learner writes its network to
  ``<run_dir>/network.pt`` (a temporary name, then a rename: whole or absent), tagged with the
  generation it is for. A worker reloads it when a task names a generation it has not loaded.
- **Workers.** Each ``SelfPlayWorker`` is one Ray actor that plays the games it is given with
  the batched search (``tw_rl.training.selfplay.play_games``) and writes shards as games finish
  (``tw_rl.training.replay_buffer.write_shard``: atomic, named ``shard-g<gen>-w<worker>-...``,
  so workers never pick the same name).
- **The pool.** ``SelfPlayPool.play_generation`` gives each idle worker an equal share of the
  games the generation still needs (counted from the shards on disk, so a resumed run plays only
  the rest) until the quota is written.
- **The source.** ``RayTurns`` is the training loop's ``SelfPlaySource``
  (``tw_rl.training.selfplay_source``) over the pool.
- **Deaths.** A worker that dies (``RayActorError``: killed, out of memory, its node lost) is
  replaced at once by a new worker with a new number (so that one declared dead but still
  writing could not collide with it); the games it had written stay (the learner only ever
  sees whole shards), the ones it was still playing are lost, counted and played again by the
  pool. More than ``ray.max_restarts`` deaths in a run stop it with an error.

**Overlapped on Ray** (``selfplay.overlap_workers=N`` with ``ray.address``): N actors
(``OverlapWorker``) play without pause with the newest published network, as the overlapped
processes of one machine do (``tw_rl.training.overlap.play_until_stopped``), while the learner
trains (``OverlapPool``: ``tw_rl.training.overlap.OverlapWorkers``, as ``SelfPlayProcesses`` is). A
dead actor is replaced by one with a new number, at most ``ray.max_restarts`` times; its games
in flight are lost, its shards stay.

The run folder keeps the layout of a one-process run (plus ``network.pt``), so a run resumes
the same way with or without Ray. On a cluster every node must see the run folder at the same
path (a shared filesystem) and have tw_rl installed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import ray
import torch
from ray.exceptions import RayActorError

from tw_rl.cluster import ray_session
from tw_rl.config import TrainConfig
from tw_rl.core.rules import Rules
from tw_rl.training.checkpoint import net_from_checkpoint
from tw_rl.training.net import NetPolicyValue, TumbleweedNet, resolve_device
from tw_rl.training.overlap import JOIN_S, play_until_stopped
from tw_rl.training.published import load_published, publish_network
from tw_rl.training.replay_buffer import ReplayWindow, shard_games, write_shard
from tw_rl.training.run_clock import RunClock
from tw_rl.training.selfplay import SelfPlayStats, play_games
from tw_rl.training.selfplay_source import selfplay_metrics, turn_share, turn_step_due

TASK_BATCHES = 4  # a task holds at most this many batches (parallel_games) of games
CPU_ASK_S = 10.0  # how long an overlapped worker may take to say its CPU time


class SelfPlayWorker:
    """One self-play worker (a Ray actor in a run): plays games, writes shards, returns stats."""

    def __init__(self, cfg: TrainConfig, run_dir: str, worker: int):
        if cfg.threads > 0:
            torch.set_num_threads(cfg.threads)
        self.cfg = cfg
        self.run_dir = Path(run_dir)
        self.worker = worker
        board = cfg.board
        self.rules = Rules(board.size, board.variant, board.setup, board.stale_end)
        self.device = resolve_device(cfg.device)
        self.generation: int | None = None
        self.policy_value: NetPolicyValue | None = None

    def pid(self) -> int:
        """The worker's process id (tests kill it by this)."""
        return os.getpid()

    def play(
        self, generation: int, games: int, seed: list[int], deadline: float | None = None
    ) -> tuple[SelfPlayStats, int]:
        """Play ``games`` games of ``generation`` with its published network, writing shards as
        they finish; returns the stats and the network evaluations made. Past ``deadline``
        (``time.time()``) it stops early as ``tw_rl.training.selfplay.play_games`` does."""
        if self.generation != generation:
            payload = load_published(self.run_dir, generation)
            net = net_from_checkpoint(payload, self.device)
            self.policy_value = NetPolicyValue(
                net, self.rules, self.device, precision=self.cfg.precision, backend=self.cfg.backend
            )
            self.generation = generation
        folder = self.run_dir / "selfplay"
        parallel = self.cfg.selfplay.parallel_games

        def store(count: int, samples) -> None:
            write_shard(folder, generation, count, samples, worker=self.worker)

        before = self.policy_value.evaluations
        stats = play_games(
            self.rules,
            self.policy_value,
            self.cfg.search,
            games,
            parallel,
            np.random.default_rng(seed),
            store,
            chunk_games=max(1, parallel // 4),  # as in the one-process loop
            stop=None if deadline is None else lambda: time.time() >= deadline,
        )
        return stats, self.policy_value.evaluations - before


@dataclass
class GenerationResult:
    """What the pool did for one generation."""

    stats: SelfPlayStats  # the games played (and written) by this call, all workers together
    evaluations: int  # network evaluations, all workers together
    seconds: float  # wall time on the driver, publishing the network included
    tasks: int  # tasks handed out
    lost_games: int  # games that workers were playing when they died (played again)
    restarts: int  # workers replaced during this generation


@dataclass
class _Task:
    worker: int
    games: int
    written_before: int  # games of this generation the worker had on disk when the task began


class SelfPlayPool:
    """Self-play workers on Ray, driven from the training process (see the module docstring)."""

    def __init__(self, cfg: TrainConfig, run_dir: str | Path):
        self.cfg = cfg
        self.run_dir = Path(run_dir)
        self.remote = ray.remote(
            num_cpus=cfg.ray.cpus_per_worker, num_gpus=cfg.ray.gpus_per_worker, max_restarts=0
        )(SelfPlayWorker)
        count = cfg.selfplay.workers
        if count <= 0:  # one per CPU that the cluster offers
            count = max(1, int(ray.cluster_resources().get("CPU", 1) // max(cfg.ray.cpus_per_worker, 1e-9)))
        self.actors = {w: self._start(w) for w in range(count)}
        self.next_worker = count  # a replacement gets a new number: its shards never meet the old one's
        self.restarts = 0
        # Wait until every worker runs (imports done), so that a broken install fails here, at once.
        ray.get([actor.pid.remote() for actor in self.actors.values()])

    def _start(self, worker: int):
        return self.remote.remote(self.cfg, str(self.run_dir), worker)

    def pid(self, worker: int) -> int:
        return ray.get(self.actors[worker].pid.remote())

    def play_generation(
        self, net: TumbleweedNet, generation: int, quota: int, seed: int = 0, deadline: float | None = None
    ) -> GenerationResult:
        """Publish ``net`` and have the workers write ``quota`` games of ``generation`` in all
        (games already on disk count); returns when they are written. Past ``deadline``
        (``time.time()``, the run's time limit) no task is handed out and the running ones stop
        early (their games in flight played out quickly)."""
        start = time.perf_counter()
        folder = self.run_dir / "selfplay"
        publish_network(self.run_dir, net, generation)
        total, evaluations, lost, issued = SelfPlayStats(), 0, 0, 0
        resumed = shard_games(folder, generation)  # in the seeds: a resumed generation plays new games
        restarts_before = self.restarts
        running: dict[object, _Task] = {}
        limit = TASK_BATCHES * self.cfg.selfplay.parallel_games
        while True:
            busy = {task.worker for task in running.values()}
            idle = [w for w in self.actors if w not in busy]
            while idle and (deadline is None or time.time() < deadline):
                need = quota - self._counted(folder, generation, running)
                if need <= 0:
                    break
                games = min(math.ceil(need / len(idle)), limit)
                worker = idle.pop(0)
                ref = self.actors[worker].play.remote(
                    generation, games, [seed, generation, resumed, issued], deadline
                )
                running[ref] = _Task(worker, games, shard_games(folder, generation, worker))
                issued += 1
            if not running:
                break
            ready, _ = ray.wait(list(running), num_returns=1)
            for ref in ready:
                task = running.pop(ref)
                try:
                    stats, evals = ray.get(ref)
                except RayActorError as err:
                    written = shard_games(folder, generation, task.worker) - task.written_before
                    lost += max(0, task.games - written)
                    self._replace(task.worker, err)
                    continue
                _add(total, stats)
                evaluations += evals
        return GenerationResult(
            total, evaluations, time.perf_counter() - start, issued, lost, self.restarts - restarts_before
        )

    def _counted(self, folder: Path, generation: int, running: dict[object, _Task]) -> int:
        """Games on disk plus games handed out and not yet written."""
        on_disk = shard_games(folder, generation)
        for task in running.values():
            written = shard_games(folder, generation, task.worker) - task.written_before
            on_disk += max(0, task.games - written)
        return on_disk

    def _replace(self, worker: int, err: Exception) -> None:
        self.restarts += 1
        reason = _death_within_limit(self.restarts, self.cfg.ray.max_restarts, err)
        with contextlib.suppress(Exception):
            ray.kill(self.actors.pop(worker), no_restart=True)
        new = self.next_worker
        self.next_worker += 1
        self.actors[new] = self._start(new)
        warnings.warn(
            f"self-play worker {worker} died ({reason}); worker {new} takes its place", stacklevel=3
        )

    def close(self) -> None:
        for actor in self.actors.values():
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)
        self.actors = {}


class RayTurns:
    """``SelfPlaySource``: each generation's games played by the Ray workers of a ``SelfPlayPool``
    with the learner's network (published for them), then the learner's turn."""

    def __init__(self, cfg: TrainConfig, run_dir: str | Path, pool: SelfPlayPool, net: TumbleweedNet):
        self.cfg, self.folder, self.pool, self.net = cfg, Path(run_dir) / "selfplay", pool, net

    def play(self, generation: int, rng: np.random.Generator, clock: RunClock) -> tuple[dict, float]:
        done = shard_games(self.folder, generation)
        if done >= self.cfg.selfplay.games_per_generation:
            return {}, 1.0
        deadline = clock.wall_deadline()
        result = self.pool.play_generation(
            self.net, generation, self.cfg.selfplay.games_per_generation, self.cfg.seed, deadline
        )
        out = selfplay_metrics(result.stats, result.seconds, result.evaluations)
        out["perf/workers"] = len(self.pool.actors)
        out["selfplay/lost_games"] = result.lost_games
        out["selfplay/worker_restarts"] = result.restarts
        stopped = result.stats.stopped_early or (deadline is not None and time.time() >= deadline)
        return out, turn_share(self.cfg, self.folder, generation, done, result.stats, stopped)

    def step_due(self, window: ReplayWindow, taken: int, clock: RunClock) -> bool | None:
        return turn_step_due(self.cfg, window, clock)

    def generation_done(self, generation: int, net: TumbleweedNet, steps: int, seconds: float) -> dict:
        return {}

    def cpu_seconds(self) -> float | None:
        return None  # the workers' CPU time is not seen from here


def _add(total: SelfPlayStats, part: SelfPlayStats) -> None:
    for f in dataclasses.fields(SelfPlayStats):
        if f.name == "stopped_early":
            total.stopped_early = total.stopped_early or part.stopped_early
        elif f.name != "seconds":
            setattr(total, f.name, getattr(total, f.name) + getattr(part, f.name))


class OverlapWorker:
    """One overlapped self-play worker (a threaded Ray actor): ``run`` plays until ``stop``;
    ``cpu_seconds`` and ``pid`` answer beside it."""

    def __init__(self, cfg: TrainConfig, run_dir: str, worker: int):
        self.cfg, self.run_dir, self.worker = cfg, run_dir, worker
        self.stopping = threading.Event()

    def pid(self) -> int:
        """The worker's process id (tests kill it by this)."""
        return os.getpid()

    def run(self) -> None:
        play_until_stopped(self.cfg, self.run_dir, self.worker, self.stopping.is_set, lambda seconds: None)

    def stop(self) -> None:
        self.stopping.set()

    def cpu_seconds(self) -> float:
        """The CPU time of this actor's process so far."""
        return time.process_time()


class OverlapPool:
    """The overlapped self-play workers of a run on Ray (see the module docstring); ``check``,
    ``cpu_seconds`` and ``stop`` as ``tw_rl.training.overlap.SelfPlayProcesses`` has them."""

    def __init__(self, cfg: TrainConfig, run_dir: str | Path):
        self.cfg, self.run_dir = cfg, str(run_dir)
        self.remote = ray.remote(
            num_cpus=cfg.ray.cpus_per_worker,
            num_gpus=cfg.ray.gpus_per_worker,
            max_restarts=0,
            max_concurrency=3,  # run, and stop / cpu_seconds / pid beside it
        )(OverlapWorker)
        self.running: dict[int, tuple[object, object]] = {}  # worker -> (actor, its run's ref)
        self.cpu: dict[int, float] = {}  # worker -> CPU seconds as last asked (the dead keep theirs)
        self.restarts = 0
        self.stopped = False
        count = cfg.selfplay.overlap_workers
        for worker in range(count):
            self._start(worker)
        self.next_worker = count  # a replacement gets a new number: its shards never meet the old one's
        # Wait until every worker runs (imports done), so that a broken install fails here, at once.
        ray.get([actor.pid.remote() for actor, _ in self.running.values()])

    def _start(self, worker: int) -> None:
        actor = self.remote.remote(self.cfg, self.run_dir, worker)
        self.running[worker] = (actor, actor.run.remote())

    def pid(self, worker: int) -> int:
        return ray.get(self.running[worker][0].pid.remote())

    def check(self) -> None:
        """Replace a dead worker (at most ``ray.max_restarts`` in all); RuntimeError (one line)
        when a worker ended by an error or stopped unasked."""
        if self.stopped:
            return
        refs = {ref: worker for worker, (_, ref) in self.running.items()}
        ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=0)
        for ref in ready:
            worker = refs[ref]
            try:
                ray.get(ref)
            except RayActorError as err:
                self._replace(worker, err)
                continue
            except Exception as err:  # noqa: BLE001 - the worker's own error, passed on in one line
                cause = getattr(err, "cause", None) or err  # a RayTaskError carries the worker's error
                raise RuntimeError(
                    f"self-play worker {worker} failed: {type(cause).__name__}: {_first_line(cause)}"
                ) from None
            raise RuntimeError(f"self-play worker {worker} stopped unasked")

    def _replace(self, worker: int, err: Exception) -> None:
        self.restarts += 1
        reason = _death_within_limit(self.restarts, self.cfg.ray.max_restarts, err)
        actor, _ = self.running.pop(worker)
        with contextlib.suppress(Exception):
            ray.kill(actor, no_restart=True)
        new = self.next_worker
        self.next_worker += 1
        self._start(new)
        warnings.warn(
            f"self-play worker {worker} died ({reason}); worker {new} takes its place; "
            "only its games in flight are lost",
            stacklevel=3,
        )

    def cpu_seconds(self) -> float:
        """CPU time of the workers so far (a dead worker's as last asked)."""
        for worker, (actor, _) in self.running.items():
            with contextlib.suppress(Exception):
                self.cpu[worker] = float(ray.get(actor.cpu_seconds.remote(), timeout=CPU_ASK_S))
        return sum(self.cpu.values())

    def stop(self) -> None:
        """Tell the workers to stop, wait while they play out their games in flight, end them."""
        if self.stopped:
            return
        self.stopped = True
        for actor, _ in self.running.values():
            with contextlib.suppress(Exception):
                actor.stop.remote()
        refs = [ref for _, ref in self.running.values()]
        with contextlib.suppress(Exception):
            ray.wait(refs, num_returns=len(refs), timeout=JOIN_S)
        self.cpu_seconds()  # the games played out count too
        for actor, _ in self.running.values():
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)

    def __enter__(self) -> OverlapPool:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _first_line(err: Exception) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def _death_within_limit(deaths: int, limit: int, err: Exception) -> str:
    """The one-line reason of a worker's death, the run's ``deaths``-th; RuntimeError once there
    are more than ``limit`` (``ray.max_restarts``). Both pools count their deaths with it."""
    reason = _first_line(err)
    if deaths > limit:
        raise RuntimeError(
            f"self-play workers died {deaths} times (ray.max_restarts={limit}); the last: {reason}"
        )
    return reason


@contextlib.contextmanager
def open_overlap_pool(cfg: TrainConfig, run_dir: str | Path) -> Iterator[OverlapPool]:
    """Connect to Ray as ``cfg.ray.address`` says, start the overlapped workers; stop both at the end."""
    with ray_session(cfg.ray.address, cfg.selfplay.overlap_workers * cfg.ray.cpus_per_worker):
        with OverlapPool(cfg, run_dir) as pool:
            yield pool


@contextlib.contextmanager
def open_pool(cfg: TrainConfig, run_dir: str | Path) -> Iterator[SelfPlayPool]:
    """Connect to Ray as ``cfg.ray.address`` says, start the workers; stop both at the end."""
    cpus = None
    if cfg.ray.address == "local" and cfg.selfplay.workers > 0:
        cpus = cfg.selfplay.workers * cfg.ray.cpus_per_worker
    with ray_session(cfg.ray.address, cpus):
        pool = SelfPlayPool(cfg, run_dir)
        try:
            yield pool
        finally:
            pool.close()
