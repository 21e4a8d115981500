"""The AlphaZero cycle, top to bottom: self-play, the replay window, learn, checkpoint, evaluate, log.

A run lives in one folder::

    run_dir/
      config.json                 the resolved config
      selfplay/shard-*.npz        samples, written as games finish (atomic)
      checkpoints/ckpt-g*.pt      the network after each generation (atomic, weights_only)
      tb/                         TensorBoard events: selfplay/, train/, arena/, perf/
      metrics.jsonl               one line per generation (the same figures as TensorBoard)
      train.log                   the run's log: its start, where it resumed, a line per generation
      network.pt                  with Ray or overlapped workers: the network they play with (atomic)
      .lock                       held (flock) while a training process works in the folder

Starting a run whose folder already holds checkpoints resumes from the newest readable one;
the generation in progress keeps the games already written to disk and plays the rest. A run
killed at any moment loses only the games and training steps in flight: files are written
atomically and read back before they take their names, the temporary files of a killed writer
are removed at the next start, a cut-off last line of ``metrics.jsonl`` is dropped, and a
generation whose checkpoint was written but whose arena or metrics line was not gets them when
the run resumes (from the metrics kept in the checkpoint). A second training process started
on a folder in use stops at once with a one-line message. The log
lines (logger ``tw_rl.training.loop``) go to the console and to ``train.log``; under Hydra,
whose job log is ``<output dir>/train.log``, its handlers write them.

``max_minutes`` is checked after every move batch of self-play, not only between generations:
once it has passed, no new game starts, the games in flight are played out at one simulation a
move (seconds) and written, the learner takes steps in proportion to the samples the generation
got (``selfplay/partial`` in its metrics), a checkpoint is written, a due arena is skipped, and
the run stops; started again, it goes on with the next generation. Learning that would run more
than ``LEARN_GRACE_S`` past the limit stops there too. So a run ends within about a minute of
``max_minutes`` on any machine, with Ray workers too (no task is handed out past the limit and
the running ones stop the same way). The first generation of every start runs even when the
limit is tiny, so each start makes progress.

By default self-play and learning take turns: each generation's games are played in this
process, or by Ray workers with ``ray.address`` (``tw_rl.training.ray_selfplay``, then imported
with Ray; a run without Ray never imports it), and then the learner takes its steps. With
``selfplay.overlap_workers=N`` they overlap: N worker processes of this machine
(``tw_rl.training.overlap``; -1: one per core, ``overlap_worker_count``), or with ``ray.address``
N Ray actors, play while this process trains.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

from tw_rl.cluster import ray_installed
from tw_rl.config import ConfigError, NetConfig, TrainConfig
from tw_rl.core.baselines import BASELINES
from tw_rl.core.rules import Rules
from tw_rl.files import (
    FolderInUse,
    append_line,
    drop_partial_line,
    folder_lock,
    remove_temporaries,
    write_atomic,
)
from tw_rl.training.checkpoint import (
    CheckpointError,
    check_size,
    checkpoint_path,
    initial_checkpoint,
    latest_checkpoint,
    load_net,
    save_checkpoint,
)
from tw_rl.training.inference import check_backend
from tw_rl.training.learner import Learner
from tw_rl.training.match import play_match, search_player
from tw_rl.training.metrics_log import METRICS_FILE
from tw_rl.training.net import NetPolicyValue, build_net, inference_dtype, resolve_device
from tw_rl.training.overlap import SelfPlayProcesses, overlap_worker_count
from tw_rl.training.published import publish_network
from tw_rl.training.replay_buffer import ReplayWindow, ShardFormatError, shard_games, write_shard
from tw_rl.training.selfplay import play_games

log = logging.getLogger(__name__)
LOG_FILE = "train.log"  # in the run folder
LEARN_GRACE_S = 30.0  # a generation's learning may run this long past max_minutes, then it stops
LOG_FORMAT = "[%(asctime)s] %(message)s"
SHOWN = {  # metrics -> their name in the line a generation logs
    "selfplay/games": "games",
    "selfplay/samples": "samples",
    "train/policy": "policy loss",
    "train/value": "value loss",
    "train/step": "step",
    "arena/vs_random": "vs random",
    "arena/vs_greedy": "vs greedy",
    "arena/vs_previous": "vs previous",
}


@contextlib.contextmanager
def run_log(run_dir: Path) -> Iterator[None]:
    """INFO lines of this module to the console and to ``<run_dir>/train.log`` while a run
    lasts, each unless a handler of the root logger already writes there (Hydra's job log)."""
    path = (Path(run_dir) / LOG_FILE).resolve()
    handlers = logging.getLogger().handlers
    files = {Path(h.baseFilename).resolve() for h in handlers if isinstance(h, logging.FileHandler)}
    console = any(map(_is_console, handlers))
    added: list[logging.Handler] = []
    if path not in files:
        added.append(logging.FileHandler(path, encoding="utf-8"))
    if not console:
        added.append(logging.StreamHandler())
    level = log.level
    log.setLevel(logging.INFO)
    for handler in added:
        handler.setFormatter(logging.Formatter(LOG_FORMAT, "%Y-%m-%d %H:%M:%S"))
        log.addHandler(handler)
    try:
        yield
    finally:
        for handler in added:
            log.removeHandler(handler)
            handler.close()
        log.setLevel(level)


def _is_console(handler: logging.Handler) -> bool:
    """Whether a logging handler writes to the terminal (stdout or stderr)."""
    return isinstance(handler, logging.StreamHandler) and handler.stream in (sys.stdout, sys.stderr)


def generation_line(metrics: dict, minutes: float) -> str:
    """The log line of a finished generation."""
    parts = [
        f"{name} {metrics[key]:.4g}" if isinstance(metrics[key], float) else f"{name} {metrics[key]}"
        for key, name in SHOWN.items()
        if key in metrics
    ]
    return f"generation {metrics['generation']}: " + ", ".join(parts + [f"{minutes:.1f} min since start"])


def check_config(cfg: TrainConfig) -> None:
    """Refuse a config that cannot work before anything runs (``ConfigError``, one line)."""
    if not cfg.run_dir:
        raise ConfigError("run_dir must name the run's folder")
    try:
        Rules(cfg.board.size, cfg.board.variant, cfg.board.setup, cfg.board.stale_end)
        device = resolve_device(cfg.device)
        check_backend(cfg.backend, inference_dtype(cfg.precision, device), device)
        cfg.search.check()
    except ValueError as err:
        raise ConfigError(str(err)) from None
    unknown = [name for name in cfg.eval.opponents if name not in BASELINES and name != "previous"]
    if unknown:
        raise ConfigError(f"eval.opponents: unknown {unknown}; use random, greedy or previous")
    for name, value in (
        ("search.simulations", cfg.search.simulations),
        ("search.cheap_simulations", cfg.search.cheap_simulations),
        ("search.gumbel_actions", cfg.search.gumbel_actions),
        ("selfplay.games_per_generation", cfg.selfplay.games_per_generation),
        ("selfplay.parallel_games", cfg.selfplay.parallel_games),
        ("learner.batch_size", cfg.learner.batch_size),
        ("net.blocks", cfg.net.blocks),
        ("net.channels", cfg.net.channels),
    ):
        if value < 1:
            raise ConfigError(f"{name} must be at least 1, got {value}")
    if not 0 <= cfg.search.full_search_fraction <= 1:
        raise ConfigError("search.full_search_fraction must lie in [0, 1]")
    if cfg.selfplay.overlap_workers < -1:
        raise ConfigError(
            "selfplay.overlap_workers must be -1 (one per core), 0 (take turns) or a number of "
            f"processes, got {cfg.selfplay.overlap_workers}"
        )
    if cfg.learner.sample_reuse <= 0:
        raise ConfigError(f"learner.sample_reuse must be positive, got {cfg.learner.sample_reuse}")
    if cfg.selfplay.workers < 0:
        raise ConfigError(f"selfplay.workers must be at least 0, got {cfg.selfplay.workers}")
    if cfg.ray.address:
        if not ray_installed():
            raise ConfigError(f"ray.address={cfg.ray.address} needs Ray: pip install -e '.[ray]'")
        if cfg.ray.cpus_per_worker <= 0 or cfg.ray.gpus_per_worker < 0 or cfg.ray.max_restarts < 0:
            raise ConfigError("ray.cpus_per_worker must be positive, gpus_per_worker and max_restarts >= 0")
        if cfg.selfplay.overlap_workers > 0 and cfg.selfplay.workers:
            raise ConfigError(
                f"selfplay.workers={cfg.selfplay.workers} is for the generational loop on Ray; overlapped "
                f"on Ray, selfplay.overlap_workers={cfg.selfplay.overlap_workers} is the number of actors: "
                "set one of them"
            )
    elif cfg.selfplay.workers > 1:
        raise ConfigError(
            f"selfplay.workers={cfg.selfplay.workers} needs Ray: set ray.address=local (this machine), "
            "auto or HOST:PORT (a cluster)"
        )


@contextlib.contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold the run folder's lock (``tw_rl.files.folder_lock``) while a run works in it;
    ConfigError if another process holds it."""
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(folder_lock(run_dir))
        except FolderInUse as err:
            raise ConfigError(
                f"{run_dir} is in use by another training process (pid {err.pid}); "
                "wait for it to end or choose another run folder"
            ) from None
        yield


def train(cfg: TrainConfig) -> dict:
    """Run (or resume) a training run; returns the last generation's metrics."""
    check_config(cfg)
    auto = cfg.selfplay.overlap_workers == -1
    workers = overlap_worker_count(cfg)  # -1 (auto) becomes a count here, and so in config.json
    cfg = dataclasses.replace(cfg, selfplay=dataclasses.replace(cfg.selfplay, overlap_workers=workers))
    init = None
    if cfg.init_from:  # the network (and so net.*) comes from that checkpoint
        try:
            init = initial_checkpoint(cfg.init_from, cfg.board.size)
        except CheckpointError as err:
            raise ConfigError(f"init_from: {err}") from None
        cfg = dataclasses.replace(cfg, net=NetConfig(**init[1]["net"]))
    run_dir = Path(cfg.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    with run_lock(run_dir):
        for folder in (run_dir, run_dir / "selfplay", run_dir / "checkpoints"):
            remove_temporaries(folder)  # left by a process killed while writing
        write_atomic(run_dir / "config.json", json.dumps(dataclasses.asdict(cfg), indent=2))
        with run_log(run_dir):
            if auto:
                log.info(
                    f"selfplay.overlap_workers=-1: {workers} self-play processes beside the learner"
                    if workers
                    else "selfplay.overlap_workers=-1: self-play and learning take turns (one core, "
                    "a GPU or Ray)"
                )
            try:
                return _train(cfg, run_dir, init)
            except ShardFormatError as err:  # a shard of another format or board size
                raise ConfigError(str(err)) from None


def logged_metrics(path: Path) -> list[dict]:
    """The lines of ``metrics.jsonl`` that read as JSON objects; a line cut off by a kill is
    dropped first."""
    if drop_partial_line(path):
        log.info(f"{path}: dropped a cut-off last line (the run was killed while writing it)")
    rows = []
    with contextlib.suppress(FileNotFoundError):
        for line in path.read_text(encoding="utf-8").splitlines():
            with contextlib.suppress(ValueError):
                row = json.loads(line)
                if isinstance(row, dict):
                    rows.append(row)
    return rows


def logged_generations(rows: list[dict]) -> set[int]:
    """The generations that have their metrics line."""
    done = set()
    for row in rows:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            done.add(int(row["generation"]))
    return done


def last_logged(rows: list[dict], key: str) -> float:
    """A running total so far (all resumes together): ``key`` of the newest metrics line that has
    it (0 for a new run, or one logged before the total was kept). ``time/run_minutes`` is the
    run's wall time, ``time/cpu_hours`` its CPU time."""
    for row in reversed(rows):
        with contextlib.suppress(KeyError, TypeError, ValueError):
            return float(row[key])
    return 0.0


def _train(cfg: TrainConfig, run_dir: Path, init: tuple[Path, dict] | None = None) -> dict:
    if cfg.threads > 0:
        torch.set_num_threads(cfg.threads)
    device = resolve_device(cfg.device)
    rules = Rules(cfg.board.size, cfg.board.variant, cfg.board.setup, cfg.board.stale_end)
    eval_rules = Rules(cfg.board.size, cfg.board.variant, "judge", cfg.board.stale_end)
    torch.manual_seed(cfg.seed)

    net = build_net(cfg.net, cfg.board.size).to(device)
    learner = Learner(net, rules, cfg.learner, device)
    first_generation, resumed_metrics = _resume(cfg, run_dir, learner)
    if init is not None and first_generation == 0:
        net.load_state_dict(init[1]["model"])
        log.info(f"initialised from {init[0]} (its generation {init[1]['generation']}, net {cfg.net.name})")
    # One generator per generation, derived from the seed: a resumed run continues reproducibly.
    writer = SummaryWriter(str(run_dir / "tb"))
    writer.add_text(
        "config", "```\n" + json.dumps(dataclasses.asdict(cfg), indent=2) + "\n```", first_generation
    )
    window = ReplayWindow(run_dir / "selfplay", cfg.learner.replay_window, cfg.board.size)
    window.refresh()  # a shard of another format or board size stops the run now, not after self-play
    policy_value = NetPolicyValue(net, rules, device, precision=cfg.precision, backend=cfg.backend)
    metrics: dict = {}
    started = time.monotonic()
    metrics_path = run_dir / METRICS_FILE
    logged = logged_metrics(metrics_path)
    run_minutes = last_logged(logged, "time/run_minutes")
    cpu_hours_before = last_logged(logged, "time/cpu_hours")
    cpu_started = time.process_time()  # this process, all its threads (not its children)
    last = first_generation - 1
    if last >= 0 and last not in logged_generations(logged):
        # Killed after the checkpoint of ``last`` but before its arena and metrics line.
        metrics = {"generation": last, **resumed_metrics}
        if cfg.eval.every and (last + 1) % cfg.eval.every == 0:
            rng = np.random.default_rng([cfg.seed, last, 1])
            metrics.update(_evaluate(cfg, eval_rules, policy_value, run_dir, last, rng, writer, device))
        writer.flush()
        append_line(metrics_path, json.dumps(metrics))
        log.info(generation_line(metrics, 0.0) + " (finished after the resume)")
    with contextlib.ExitStack() as stack:
        stack.callback(writer.close)
        pool = None
        if cfg.ray.address and not cfg.selfplay.overlap_workers:
            from tw_rl.training.ray_selfplay import open_pool  # Ray is imported only here

            pool = stack.enter_context(open_pool(cfg, run_dir))
        if cfg.progress:  # the log lines go above the progress bar
            consoles = [lg for lg in (logging.getLogger(), log) if any(map(_is_console, lg.handlers))]
            stack.enter_context(logging_redirect_tqdm(consoles))
        bar = stack.enter_context(
            tqdm(
                total=cfg.generations,
                initial=first_generation,
                disable=not cfg.progress,
                unit="gen",
                dynamic_ncols=True,
            )
        )
        deadline = started + 60 * cfg.max_minutes if cfg.max_minutes else None

        def out_of_time() -> bool:
            return deadline is not None and time.monotonic() >= deadline

        def past_grace() -> bool:  # the learner may run past the limit by this much, no more
            return deadline is not None and time.monotonic() >= deadline + LEARN_GRACE_S

        def close(
            generation: int, metrics: dict, generation_started: float, rng, worker_cpu_s: float = 0.0
        ) -> None:
            """A generation's end: its checkpoint, the arena when due, its metrics line and log line.
            ``worker_cpu_s``: the CPU seconds of this process's self-play workers so far."""
            nonlocal run_minutes
            save_checkpoint(
                run_dir / "checkpoints",
                generation,
                learner.checkpoint(generation, dataclasses.asdict(cfg), metrics),
            )
            if cfg.eval.every and (generation + 1) % cfg.eval.every == 0:
                if out_of_time():  # the arena would overrun the limit; the next one comes on time
                    log.info(f"generation {generation}: arena skipped (max_minutes={cfg.max_minutes:g})")
                else:
                    metrics.update(
                        _evaluate(cfg, eval_rules, policy_value, run_dir, generation, rng, writer, device)
                    )
            now = time.monotonic()
            minutes = (now - started) / 60
            # Wall time of the run across resumes: what A/Bs at equal wall time compare.
            run_minutes += (now - generation_started) / 60
            metrics["time/generation_minutes"] = (now - generation_started) / 60
            metrics["time/run_minutes"] = run_minutes
            if pool is None:  # the generational Ray workers' CPU time is not seen from here
                cpu_s = time.process_time() - cpu_started + worker_cpu_s
                metrics["time/cpu_hours"] = cpu_hours_before + cpu_s / 3600
                writer.add_scalar("time/cpu_hours", metrics["time/cpu_hours"], generation)
            writer.add_scalar("perf/elapsed_minutes", minutes, generation)
            writer.add_scalar("time/run_minutes", run_minutes, generation)
            writer.flush()
            append_line(metrics_path, json.dumps(metrics))
            log.info(generation_line(metrics, minutes))
            bar.update(1)
            bar.set_postfix(
                {k: round(v, 3) for k, v in metrics.items() if k in ("train/policy", "arena/vs_greedy")}
            )
            if out_of_time():
                minutes = (time.monotonic() - started) / 60
                log.info(
                    f"stopping after {minutes:.1f} minutes (max_minutes={cfg.max_minutes:g}); "
                    "the same command resumes"
                )

        if cfg.selfplay.overlap_workers:
            return _train_overlapped(
                cfg, run_dir, learner, window, writer, first_generation, out_of_time, past_grace, close
            )
        for generation in range(first_generation, cfg.generations):
            # The first generation of a process always runs (it stops early if it must), so
            # every start of a run makes progress; later ones only inside the time limit.
            if generation > first_generation and out_of_time():
                break
            rng = np.random.default_rng([cfg.seed, generation])
            metrics = {"generation": generation}
            generation_started = time.monotonic()
            if pool is None:
                metrics.update(
                    _self_play(cfg, rules, policy_value, run_dir, generation, rng, writer, out_of_time)
                )
            else:
                wall_deadline = None if deadline is None else time.time() + deadline - time.monotonic()
                metrics.update(_self_play_on_ray(cfg, pool, net, run_dir, generation, writer, wall_deadline))
            played = shard_games(run_dir / "selfplay", generation)
            share = min(1.0, played / cfg.selfplay.games_per_generation, metrics.pop("share", 1.0))
            if share < 1:
                metrics["selfplay/partial"] = True  # stopped by max_minutes
                log.info(
                    f"generation {generation}: stopped early by max_minutes={cfg.max_minutes:g} with "
                    f"{played} of {cfg.selfplay.games_per_generation} games, {share:.0%} of its samples; "
                    f"the learner takes {_steps(cfg, share)} of {cfg.learner.steps_per_generation} steps"
                )
            metrics.update(
                _learn(cfg, learner, window, rng, writer, generation, _steps(cfg, share), past_grace)
            )
            if metrics.get("train/steps", _steps(cfg, share)) < _steps(cfg, share):
                metrics["selfplay/partial"] = True
            close(generation, metrics, generation_started, rng)
            if out_of_time():
                break
    return metrics


def _train_overlapped(
    cfg, run_dir, learner, window, writer, first_generation, out_of_time, past_grace, close
) -> dict:
    """Train while ``selfplay.overlap_workers`` processes play (``tw_rl.training.overlap``): a
    gradient step whenever the samples drawn stay within ``learner.sample_reuse`` times the new
    samples written; every ``learner.steps_per_generation`` steps a "generation" ends (the
    network published, its checkpoint, arena and metrics line). Past ``max_minutes`` the workers
    play out their games and stop, the learner takes the steps those samples are due (at most
    the rest of the generation), and the generation ends there."""
    per_step = cfg.learner.batch_size / cfg.learner.sample_reuse  # new samples that earn one step
    publish_network(run_dir, learner.net, first_generation)
    base = window.arrived  # samples already on disk at the start are not new
    owed = 0  # steps taken in this process
    metrics: dict = {}
    with _overlap_workers(cfg, run_dir) as workers:
        for generation in range(first_generation, cfg.generations):
            if generation > first_generation and out_of_time():
                break
            rng = np.random.default_rng([cfg.seed, generation])
            generation_started = time.monotonic()
            samples_before, games_before = window.arrived, window.arrived_games
            totals: dict[str, float] = {}
            steps, stopping, train_seconds = 0, False, 0.0
            while steps < cfg.learner.steps_per_generation and not past_grace():
                if not stopping and out_of_time():
                    workers.stop()  # they play out their games in flight and write them
                    stopping = True
                    window.refresh()
                due = int((window.arrived - base) / per_step) - owed
                if due <= 0 or len(window.samples or ()) < cfg.learner.min_samples:
                    if stopping:
                        break
                    workers.check()
                    time.sleep(0.05)
                    window.refresh()
                    continue
                start = time.perf_counter()
                for key, value in learner.train_step(window.sample(cfg.learner.batch_size, rng), rng).items():
                    totals[key] = totals.get(key, 0.0) + value
                train_seconds += time.perf_counter() - start
                steps += 1
                owed += 1
                if steps % 10 == 0:
                    window.refresh()
            seconds = max(time.monotonic() - generation_started, 1e-9)
            metrics = {
                "generation": generation,
                "selfplay/games": window.arrived_games - games_before,
                "selfplay/samples": window.arrived - samples_before,
                "perf/samples_per_s": (window.arrived - samples_before) / seconds,
                "perf/workers": cfg.selfplay.overlap_workers,
                **{f"train/{k}": v / max(steps, 1) for k, v in totals.items()},
                "train/replay_samples": len(window.samples or ()),
                "train/step": learner.step,
                "train/steps": steps,
                "perf/train_steps_per_s": steps / seconds,
                "perf/train_samples_per_s": steps * cfg.learner.batch_size / max(train_seconds, 1e-9),
            }
            if steps < cfg.learner.steps_per_generation:
                metrics["selfplay/partial"] = True  # stopped by max_minutes
            for key, value in metrics.items():
                if key != "generation" and not isinstance(value, bool):
                    writer.add_scalar(key, value, generation)
            publish_network(run_dir, learner.net, generation + 1)
            close(generation, metrics, generation_started, rng, workers.cpu_seconds())
            if stopping:
                break
    return metrics


def _overlap_workers(cfg: TrainConfig, run_dir: Path):
    """The overlapped self-play workers: processes of this machine, or Ray actors with ``ray.address``."""
    if cfg.ray.address:
        from tw_rl.training.ray_selfplay import open_overlap_pool  # Ray is imported only here

        return open_overlap_pool(cfg, run_dir)
    return SelfPlayProcesses(cfg, run_dir)


def _steps(cfg: TrainConfig, share: float) -> int:
    """Gradient steps for a generation that got ``share`` of its samples: as many per new
    sample as a whole generation takes (at least one), so that a generation stopped early by
    the time limit neither overtrains its few samples nor overruns the limit by much."""
    return max(1, round(cfg.learner.steps_per_generation * share))


def _resume(cfg: TrainConfig, run_dir: Path, learner: Learner) -> tuple[int, dict]:
    """Restore the newest readable checkpoint of the run, if any: (the first generation to
    play, the metrics the checkpoint kept of its own generation)."""
    resumed = latest_checkpoint(run_dir / "checkpoints")
    if resumed is None:
        board = f"board {cfg.board.size} {cfg.board.variant}"
        log.info(f"run {run_dir}: new, generations 0 to {cfg.generations - 1}, {board}, net {cfg.net.name}")
        return 0, {}
    path, payload = resumed
    try:
        check_size(payload, cfg.board.size, path, "the run")
    except CheckpointError as err:
        raise ConfigError(str(err)) from None
    learner.restore(payload)
    generation = int(payload["generation"])
    if generation + 1 < cfg.generations:
        plan = f"next: generation {generation + 1} (the last is {cfg.generations - 1})"
    else:
        plan = f"nothing to do: generations={cfg.generations}"
    log.info(f"run {run_dir}: resumed from {path} (generation {generation}, step {learner.step}); {plan}")
    kept = {k: v for k, v in dict(payload.get("metrics") or {}).items() if k != "generation"}
    return generation + 1, kept


def _self_play(cfg, rules, policy_value, run_dir, generation, rng, writer, stop=None) -> dict:
    folder = run_dir / "selfplay"
    done = shard_games(folder, generation)
    remaining = cfg.selfplay.games_per_generation - done
    if remaining <= 0:
        return {}
    if done:
        log.info(f"generation {generation}: {done} games already on disk, {remaining} to play")
    evaluations_before = policy_value.evaluations

    def store(games: int, samples) -> None:
        write_shard(folder, generation, games, samples)

    stats = play_games(
        rules,
        policy_value,
        cfg.search,
        remaining,
        cfg.selfplay.parallel_games,
        rng,
        store,
        chunk_games=max(1, cfg.selfplay.parallel_games // 4),
        stop=stop,
    )
    out = _selfplay_metrics(stats, stats.seconds, policy_value.evaluations - evaluations_before)
    for key, value in out.items():
        writer.add_scalar(key, value, generation)
    if stats.stopped_early:
        out.update(_share(cfg, done, stats))
    return out


def _share(cfg, done: int, stats) -> dict:
    """``{"share": ...}``: the share of a whole generation's samples that a generation stopped
    early got (``done`` games from before a resume count whole). The games played out after the
    stop recorded only their first moves; a whole game records this many on average."""
    if not stats.game_lengths:
        return {}
    per_game = max(cfg.search.full_search_fraction * float(np.mean(stats.game_lengths)), 1e-9)
    return {"share": (done + stats.samples / per_game) / cfg.selfplay.games_per_generation}


def _self_play_on_ray(cfg, pool, net, run_dir, generation, writer, deadline=None) -> dict:
    """The generation's games, played by the Ray workers of ``pool`` (``tw_rl.training.ray_selfplay``)."""
    done = shard_games(run_dir / "selfplay", generation)
    if done >= cfg.selfplay.games_per_generation:
        return {}
    result = pool.play_generation(net, generation, cfg.selfplay.games_per_generation, cfg.seed, deadline)
    out = _selfplay_metrics(result.stats, result.seconds, result.evaluations)
    out["perf/workers"] = len(pool.actors)
    out["selfplay/lost_games"] = result.lost_games
    out["selfplay/worker_restarts"] = result.restarts
    for key, value in out.items():
        writer.add_scalar(key, value, generation)
    if result.stats.stopped_early or (deadline is not None and time.time() >= deadline):
        out.update(_share(cfg, done, result.stats))
    return out


def _selfplay_metrics(stats, seconds: float, evaluations: int) -> dict:
    seconds = max(seconds, 1e-9)
    return {
        "selfplay/games": stats.games,
        "selfplay/samples": stats.samples,
        "selfplay/game_length": float(np.mean(stats.game_lengths)) if stats.game_lengths else 0.0,
        "selfplay/red_win_rate": stats.red_wins / max(stats.games, 1),
        "perf/games_per_s": stats.games / seconds,
        "perf/samples_per_s": stats.samples / seconds,
        "perf/moves_per_s": stats.moves / seconds,
        "perf/simulations_per_s": stats.simulations / seconds,
        "perf/evaluations_per_s": evaluations / seconds,
    }


def _learn(
    cfg, learner: Learner, window: ReplayWindow, rng, writer, generation, steps: int, stop=None
) -> dict:
    """``steps`` gradient steps on the replay window (fewer when ``stop()`` says so first)."""
    available = window.refresh()
    writer.add_scalar("train/replay_samples", available, generation)
    if available < cfg.learner.min_samples:
        return {"train/replay_samples": available}
    start = time.perf_counter()
    totals: dict[str, float] = {}
    planned = steps
    for taken in range(planned):
        if stop is not None and stop():
            steps = taken
            log.info(
                f"generation {generation}: the learner stopped after {taken} of {planned} steps, "
                f"{LEARN_GRACE_S:g} s past max_minutes={cfg.max_minutes:g}"
            )
            break
        parts = learner.train_step(window.sample(cfg.learner.batch_size, rng), rng)
        for key, value in parts.items():
            totals[key] = totals.get(key, 0.0) + value
    seconds = max(time.perf_counter() - start, 1e-9)
    out = {f"train/{k}": v / max(steps, 1) for k, v in totals.items()}
    out["train/replay_samples"] = available
    out["train/step"] = learner.step
    out["train/steps"] = steps
    out["perf/train_samples_per_s"] = steps * cfg.learner.batch_size / seconds
    for key, value in out.items():
        writer.add_scalar(key, value, generation)
    return out


def _evaluate(cfg, rules, policy_value, run_dir, generation, rng, writer, device) -> dict:
    """The arena: the network against each of ``eval.opponents`` (``check_config`` allows a
    baseline's name or ``previous``, the network evaluated ``eval.every`` generations before)."""
    search = dataclasses.replace(cfg.search, simulations=cfg.eval.simulations)
    me = search_player(policy_value, search)
    out = {}
    for name in cfg.eval.opponents:
        if name == "previous":
            opponent = _previous_player(cfg, policy_value, run_dir, generation, search, device)
            if opponent is None:
                continue
        else:
            opponent = BASELINES[name]
        result = play_match(rules, me, opponent, cfg.eval.games, rng)
        out[f"arena/vs_{name}"] = result.score
        writer.add_scalar(f"arena/vs_{name}", result.score, generation)
    return out


def _previous_player(cfg, policy_value, run_dir, generation, search, device):
    """The searching player of the network evaluated before this one, or None when there is
    none yet (the first evaluation) or its checkpoint cannot be read (with a warning)."""
    previous = checkpoint_path(run_dir / "checkpoints", generation - cfg.eval.every)
    if not previous.exists():
        return None
    try:
        net, _ = load_net(previous, cfg.board.size, device, "the run")
    except CheckpointError as err:
        warnings.warn(f"no comparison with the previous network: {err}", stacklevel=2)
        return None
    return search_player(NetPolicyValue(net, policy_value.rules, device, precision=cfg.precision), search)
