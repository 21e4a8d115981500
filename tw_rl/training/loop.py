"""The AlphaZero cycle, top to bottom: self-play, the replay window, learn, checkpoint, arena, log.

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
N Ray actors, play while this process trains. The loop has one shape for all four: the games come
from a ``SelfPlaySource`` (``tw_rl.training.selfplay_source``, written down there), the run's
state is one record (``Run``), and ``_train`` reads top to bottom.
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
from tw_rl.files import FolderInUse, drop_partial_line, folder_lock, remove_temporaries, write_atomic
from tw_rl.training import selfplay_source
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
from tw_rl.training.learner import Learner, StepTally
from tw_rl.training.match import play_match, search_player
from tw_rl.training.metrics_log import append_metrics, metrics_path, read_metrics
from tw_rl.training.net import NetPolicyValue, build_net, inference_dtype, resolve_device
from tw_rl.training.overlap import Overlapped, SelfPlayProcesses, overlap_worker_count
from tw_rl.training.published import publish_network
from tw_rl.training.replay_buffer import ReplayWindow, ShardFormatError, shard_games
from tw_rl.training.run_clock import RunClock
from tw_rl.training.selfplay_source import InProcessTurns, SelfPlaySource

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
SHOWN_ON_BAR = ("train/policy", "arena/vs_greedy")  # metrics beside the progress bar


@contextlib.contextmanager
def run_log(run_dir: Path) -> Iterator[None]:
    """INFO lines of this module and of ``tw_rl.training.selfplay_source`` to the console and to
    ``<run_dir>/train.log`` while a run lasts, each unless a handler of the root logger already
    writes there (Hydra's job log)."""
    path = (Path(run_dir) / LOG_FILE).resolve()
    handlers = logging.getLogger().handlers
    files = {Path(h.baseFilename).resolve() for h in handlers if isinstance(h, logging.FileHandler)}
    console = any(map(_is_console, handlers))
    added: list[logging.Handler] = []
    if path not in files:
        added.append(logging.FileHandler(path, encoding="utf-8"))
    if not console:
        added.append(logging.StreamHandler())
    loggers = (log, selfplay_source.log)
    levels = [logger.level for logger in loggers]
    for handler in added:
        handler.setFormatter(logging.Formatter(LOG_FORMAT, "%Y-%m-%d %H:%M:%S"))
    for logger in loggers:
        logger.setLevel(logging.INFO)
        for handler in added:
            logger.addHandler(handler)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            for handler in added:
                logger.removeHandler(handler)
            logger.setLevel(level)
        for handler in added:
            handler.close()


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
    unknown = [name for name in cfg.arena.opponents if name not in BASELINES and name != "previous"]
    if unknown:
        raise ConfigError(f"arena.opponents: unknown {unknown}; use random, greedy or previous")
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


@dataclasses.dataclass
class Run:
    """A training process's run: what it works with, and where it stands (what one generation's
    end hands to the next)."""

    cfg: TrainConfig  # the resolved config (as in config.json)
    folder: Path  # the run folder
    learner: Learner  # the network, its optimizer and its step count (train/step)
    policy_value: NetPolicyValue  # the learner's network as self-play and the arena play it
    window: ReplayWindow  # the newest samples of the run folder, which the learner draws from
    writer: SummaryWriter  # the TensorBoard events (tb/)
    clock: RunClock  # this start's time and its max_minutes deadline
    first_generation: int  # the first generation this start plays (after the checkpoint it resumed)
    run_minutes: float  # wall minutes of the run so far, all its starts together (time/run_minutes)
    cpu_hours_before: float  # CPU hours the run had logged before this start (time/cpu_hours)
    cpu_started: float  # this process's CPU seconds (all its threads) at this start
    metrics: dict  # the newest finished generation's metrics (what ``train`` returns)


def _train(cfg: TrainConfig, run_dir: Path, init: tuple[Path, dict] | None = None) -> dict:
    """The run, top to bottom: set up (or resume), then per generation self-play, learning and
    its end (checkpoint, arena, metrics line); self-play comes from one ``SelfPlaySource``."""
    run, unfinished = _start(cfg, run_dir, init)
    _finish_resumed_generation(run, unfinished)
    with contextlib.ExitStack() as stack:
        stack.callback(run.writer.close)
        bar = _progress_bar(cfg, run.first_generation, stack)
        source = open_source(run, stack)
        for generation in range(run.first_generation, cfg.generations):
            # The first generation of a process always runs (it stops early if it must), so
            # every start of a run makes progress; later ones only inside the time limit.
            if generation > run.first_generation and run.clock.out_of_time():
                break
            # One generator per generation, derived from the seed: a resumed run continues reproducibly.
            rng = np.random.default_rng([cfg.seed, generation])
            generation_started = time.monotonic()
            played, share = source.play(generation, rng, run.clock)
            planned = _steps(cfg, share)
            if share < 1:
                _log_stopped_early(run, generation, share)
            learned = _learn(run, source, generation, planned, rng)
            seconds = time.monotonic() - generation_started
            steps = learned.get("train/steps", 0)
            metrics = {"generation": generation, **played, **learned}
            metrics.update(source.generation_done(generation, run.learner.net, steps, seconds))
            if share < 1 or learned.get("train/steps", planned) < planned:
                metrics["selfplay/partial"] = True  # stopped by max_minutes
            for key, value in metrics.items():
                if key != "generation" and not isinstance(value, bool):
                    run.writer.add_scalar(key, value, generation)
            _end_generation(run, generation, metrics, generation_started, rng, source.cpu_seconds())
            bar.update(1)
            bar.set_postfix({k: round(v, 3) for k, v in metrics.items() if k in SHOWN_ON_BAR})
            if run.clock.out_of_time():
                log.info(
                    f"stopping after {run.clock.minutes():.1f} minutes (max_minutes={cfg.max_minutes:g}); "
                    "the same command resumes"
                )
                break
    return run.metrics


def _start(cfg: TrainConfig, run_dir: Path, init: tuple[Path, dict] | None) -> tuple[Run, dict | None]:
    """The run at this start: its network (resumed from the newest checkpoint, or ``init``),
    window, TensorBoard writer and the totals logged so far; and, when the generation before
    this start has no metrics line (killed after its checkpoint), its metrics as its checkpoint
    kept them (else None)."""
    if cfg.threads > 0:
        torch.set_num_threads(cfg.threads)
    device = resolve_device(cfg.device)
    rules = Rules(cfg.board.size, cfg.board.variant, cfg.board.setup, cfg.board.stale_end)
    torch.manual_seed(cfg.seed)
    net = build_net(cfg.net, cfg.board.size).to(device)
    learner = Learner(net, rules, cfg.learner, device)
    first_generation, resumed_metrics = _resume(cfg, run_dir, learner)
    if init is not None and first_generation == 0:
        net.load_state_dict(init[1]["model"])
        log.info(f"initialised from {init[0]} (its generation {init[1]['generation']}, net {cfg.net.name})")
    writer = SummaryWriter(str(run_dir / "tb"))
    writer.add_text(
        "config", "```\n" + json.dumps(dataclasses.asdict(cfg), indent=2) + "\n```", first_generation
    )
    window = ReplayWindow(run_dir / "selfplay", cfg.learner.replay_window, cfg.board.size)
    window.refresh()  # a shard of another format or board size stops the run now, not after self-play
    policy_value = NetPolicyValue(net, rules, device, precision=cfg.precision, backend=cfg.backend)
    if drop_partial_line(metrics_path(run_dir)):
        log.info(
            f"{metrics_path(run_dir)}: dropped a cut-off last line (the run was killed while writing it)"
        )
    logged = read_metrics(run_dir)
    run = Run(
        cfg=cfg,
        folder=run_dir,
        learner=learner,
        policy_value=policy_value,
        window=window,
        writer=writer,
        clock=RunClock(cfg.max_minutes, LEARN_GRACE_S),
        first_generation=first_generation,
        run_minutes=logged.last("time/run_minutes"),
        cpu_hours_before=logged.last("time/cpu_hours"),
        cpu_started=time.process_time(),
        metrics={},
    )
    unfinished = first_generation > 0 and first_generation - 1 not in logged.generations()
    return run, resumed_metrics if unfinished else None


def _finish_resumed_generation(run: Run, kept: dict | None) -> None:
    """The arena (when due) and metrics line of the generation before this start, when a kill came
    after its checkpoint and before them; ``kept``: its metrics, as its checkpoint kept them
    (None when there is nothing to finish)."""
    if kept is None:
        return
    last = run.first_generation - 1
    run.metrics = {"generation": last, **kept}
    if run.cfg.arena.every and (last + 1) % run.cfg.arena.every == 0:
        rng = np.random.default_rng([run.cfg.seed, last, 1])
        run.metrics.update(_play_arena(run, last, rng))
    run.writer.flush()
    append_metrics(run.folder, run.metrics)
    log.info(generation_line(run.metrics, 0.0) + " (finished after the resume)")


def _progress_bar(cfg: TrainConfig, first_generation: int, stack: contextlib.ExitStack) -> tqdm:
    """The generations' progress bar (disabled unless ``progress``), the log lines above it."""
    if cfg.progress:
        consoles = [lg for lg in (logging.getLogger(), log) if any(map(_is_console, lg.handlers))]
        stack.enter_context(logging_redirect_tqdm(consoles))
    bar = tqdm(
        total=cfg.generations,
        initial=first_generation,
        disable=not cfg.progress,
        unit="gen",
        dynamic_ncols=True,
    )
    return stack.enter_context(bar)


def open_source(run: Run, stack: contextlib.ExitStack) -> SelfPlaySource:
    """The run's self-play (``tw_rl.training.selfplay_source`` lists the four kinds); workers it
    starts stop when ``stack`` closes."""
    cfg = run.cfg
    if cfg.selfplay.overlap_workers:
        publish_network(run.folder, run.learner.net, run.first_generation)  # before the workers start
        if cfg.ray.address:
            from tw_rl.training.ray_selfplay import open_overlap_pool  # Ray is imported only here

            workers = stack.enter_context(open_overlap_pool(cfg, run.folder))
        else:
            workers = stack.enter_context(SelfPlayProcesses(cfg, run.folder))
        return Overlapped(cfg, run.folder, workers, run.window)
    if cfg.ray.address:
        from tw_rl.training.ray_selfplay import RayTurns, open_pool  # Ray is imported only here

        return RayTurns(cfg, run.folder, stack.enter_context(open_pool(cfg, run.folder)), run.learner.net)
    return InProcessTurns(cfg, run.folder, run.policy_value)


def _log_stopped_early(run: Run, generation: int, share: float) -> None:
    games = run.cfg.selfplay.games_per_generation
    played = shard_games(run.folder / "selfplay", generation)
    log.info(
        f"generation {generation}: stopped early by max_minutes={run.cfg.max_minutes:g} with "
        f"{played} of {games} games, {share:.0%} of its samples; "
        f"the learner takes {_steps(run.cfg, share)} of {run.cfg.learner.steps_per_generation} steps"
    )


def _learn(run: Run, source: SelfPlaySource, generation: int, planned: int, rng) -> dict:
    """Up to ``planned`` gradient steps on the replay window, each when the source says it is due;
    no more once ``LEARN_GRACE_S`` past ``max_minutes``. The learner's metrics of the generation."""
    cfg, window = run.cfg, run.window
    window.refresh()
    tally = StepTally()
    while tally.steps < planned:
        due = source.step_due(window, tally.steps, run.clock)
        if due is None:  # too few samples to learn from
            return {"train/replay_samples": len(window.samples or ())}
        if not due:
            if run.clock.past_grace():
                log.info(
                    f"generation {generation}: the learner stopped after {tally.steps} of {planned} steps, "
                    f"{run.clock.grace_s:g} s past max_minutes={cfg.max_minutes:g}"
                )
            break
        start = time.perf_counter()
        parts = run.learner.train_step(window.sample(cfg.learner.batch_size, rng), rng)
        tally.add(parts, time.perf_counter() - start)
    return tally.metrics(run.learner.step, len(window.samples or ()), cfg.learner.batch_size)


def _end_generation(
    run: Run, generation: int, metrics: dict, generation_started: float, rng, worker_cpu_s: float | None
) -> None:
    """A generation's end: its checkpoint, the arena when due, its metrics line and log line.
    ``worker_cpu_s``: the CPU seconds of self-play outside this process so far (None: unseen)."""
    cfg = run.cfg
    save_checkpoint(
        run.folder / "checkpoints",
        generation,
        run.learner.checkpoint(generation, dataclasses.asdict(cfg), metrics),
    )
    if cfg.arena.every and (generation + 1) % cfg.arena.every == 0:
        if run.clock.out_of_time():  # the arena would overrun the limit; the next one comes on time
            log.info(f"generation {generation}: arena skipped (max_minutes={cfg.max_minutes:g})")
        else:
            metrics.update(_play_arena(run, generation, rng))
    generation_minutes = (time.monotonic() - generation_started) / 60
    # Wall time of the run across resumes: what A/Bs at equal wall time compare.
    run.run_minutes += generation_minutes
    metrics["time/generation_minutes"] = generation_minutes
    metrics["time/run_minutes"] = run.run_minutes
    if worker_cpu_s is not None:
        cpu_s = time.process_time() - run.cpu_started + worker_cpu_s
        metrics["time/cpu_hours"] = run.cpu_hours_before + cpu_s / 3600
        run.writer.add_scalar("time/cpu_hours", metrics["time/cpu_hours"], generation)
    minutes = run.clock.minutes()
    run.writer.add_scalar("perf/elapsed_minutes", minutes, generation)
    run.writer.add_scalar("time/run_minutes", run.run_minutes, generation)
    run.writer.flush()
    append_metrics(run.folder, metrics)
    log.info(generation_line(metrics, minutes))
    run.metrics = metrics


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


def _play_arena(run: Run, generation: int, rng) -> dict:
    """The arena: the network against each of ``arena.opponents`` (``check_config`` allows a
    baseline's name or ``previous``, the network of the arena ``arena.every`` generations before)."""
    cfg = run.cfg
    rules = Rules(cfg.board.size, cfg.board.variant, "judge", cfg.board.stale_end)
    search = dataclasses.replace(cfg.search, simulations=cfg.arena.simulations)
    me = search_player(run.policy_value, search)
    out = {}
    for name in cfg.arena.opponents:
        if name == "previous":
            opponent = _previous_player(
                cfg, run.policy_value, run.folder, generation, search, run.learner.device
            )
            if opponent is None:
                continue
        else:
            opponent = BASELINES[name]
        result = play_match(rules, me, opponent, cfg.arena.games, rng)
        out[f"arena/vs_{name}"] = result.score
        run.writer.add_scalar(f"arena/vs_{name}", result.score, generation)
    return out


def _previous_player(cfg, policy_value, run_dir, generation, search, device):
    """The searching player of the network of the previous arena, or None when there is
    none yet (the first arena) or its checkpoint cannot be read (with a warning)."""
    previous = checkpoint_path(run_dir / "checkpoints", generation - cfg.arena.every)
    if not previous.exists():
        return None
    try:
        net, _ = load_net(previous, cfg.board.size, device, "the run")
    except CheckpointError as err:
        warnings.warn(f"no comparison with the previous network: {err}", stacklevel=2)
        return None
    return search_player(NetPolicyValue(net, policy_value.rules, device, precision=cfg.precision), search)
