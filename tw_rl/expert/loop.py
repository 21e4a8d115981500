"""The expert-iteration loop: self-play with the current student, train, export, rate, resume.

Generation k (from 1) of a run folder:

1. self-play: the native bot with student k-1 (``students/student-g0000.twnet`` is the start:
   ``start_weights`` or the shipped student) plays ``games_per_generation`` games in
   ``processes`` processes; shards ``selfplay/shard-g<k>-w<worker>-...`` (one per game);
2. training: ``tw_rl.export.distill.distill`` continues student k-1 on the newest
   ``window_samples`` positions of all generations; the policy target is the search's visit
   distribution, the value target the game's result and the auxiliary territory target the
   final territory (``train.value_weight``, ``train.territory_weight``); with
   ``train.teacher_weight`` > 0 the outputs of the network ``teacher`` are mixed in (default 0.5
   with the shipped teacher);
3. export: ``students/student-g<k>.twnet`` (written atomically);
4. rating: student k against student k-1 in the native bot at ``rate_sims`` simulations
   (``rating/g<k>/``: the referee's games);
5. a line of ``metrics.jsonl`` and TensorBoard scalars (``tb/``).

A generation is done when its ``metrics.jsonl`` line is there. Killed and started again with
the same folder, the run continues: it keeps the finished generations, the shards written so
far (a generation's missing games are played) and a student already exported.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

from tqdm import tqdm

from tw_rl.codecup.evaluation import default_weights
from tw_rl.config import ConfigError, StudentConfig
from tw_rl.core.rules import Rules
from tw_rl.expert.config import ExpertConfig
from tw_rl.expert.rating import rate
from tw_rl.expert.selfplay import generate, native_binary
from tw_rl.export.distill import distill, teacher_targets
from tw_rl.export.weights_file import load_student, write_weights
from tw_rl.files import (
    FolderInUse,
    atomic_writer,
    folder_lock,
    remove_temporaries,
)
from tw_rl.training.checkpoint import load_checkpoint, net_from_checkpoint, resolve_checkpoint
from tw_rl.training.metrics_log import append_metrics, read_metrics
from tw_rl.training.replay_buffer import ReplayWindow, Samples, shard_games

BOARD_SIZE = 6  # the native bot plays the CodeCup board only


def check(cfg: ExpertConfig) -> None:
    """ConfigError (one line) for settings that cannot run."""
    if not cfg.run_dir:
        raise ConfigError("run_dir is empty")
    for name in ("generations", "games_per_generation", "processes", "sims", "window_samples", "rate_sims"):
        if getattr(cfg, name) < 1:
            raise ConfigError(f"{name} must be at least 1, got {getattr(cfg, name)}")
    if cfg.temperature_moves < 0 or cfg.rate_games < 0 or cfg.seed < 0:
        raise ConfigError("temperature_moves, rate_games and seed must be >= 0")
    if not 0.0 <= cfg.train.teacher_weight <= 1.0:
        raise ConfigError(f"train.teacher_weight must be in [0, 1], got {cfg.train.teacher_weight}")
    if cfg.train.teacher_weight > 0 and not cfg.teacher:
        raise ConfigError("train.teacher_weight > 0 needs teacher (a checkpoint, or 'default')")
    if cfg.start_weights and not Path(cfg.start_weights).is_file():
        raise ConfigError(f"start_weights: no such file {cfg.start_weights}")


def student_path(run: Path, generation: int) -> Path:
    return run / "students" / f"student-g{generation:04d}.twnet"


def finished_generations(run: Path) -> dict[int, dict]:
    """The metrics lines of the finished generations (a cut-off last line is ignored)."""
    return read_metrics(run).by_generation()


def newest_samples(shards: Path, window: int) -> Samples:
    """The newest ``window`` positions of the run's shards; a shard of another format version or
    board size raises ShardFormatError (one line)."""
    newest = ReplayWindow(shards, window, size=BOARD_SIZE)
    if not newest.refresh():
        raise FileNotFoundError(f"no self-play samples in {shards}")
    return newest.samples


def _teacher(cfg: ExpertConfig):
    """The network whose outputs ``train.teacher_weight`` mixes into the targets."""
    path = resolve_checkpoint(cfg.teacher)
    return net_from_checkpoint(load_checkpoint(path, size=BOARD_SIZE, user="the expert run"))


def run(cfg: ExpertConfig, log: Callable[[str], None] = print, progress: bool = True) -> list[dict]:
    """Run (or continue) the generations of ``cfg.run_dir``; returns every finished one's metrics."""
    check(cfg)
    run_dir = Path(cfg.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    try:
        with folder_lock(run_dir):
            return _run(cfg, run_dir, log, progress)
    except FolderInUse as err:
        raise ConfigError(str(err)) from None


def _run(cfg: ExpertConfig, run_dir: Path, log: Callable[[str], None], progress: bool) -> list[dict]:
    shards = run_dir / "selfplay"
    rules = Rules(BOARD_SIZE, "codecup")
    remove_temporaries(shards)  # shards a killed bot process had not renamed yet
    start = student_path(run_dir, 0)
    if not start.is_file():
        source = Path(cfg.start_weights or default_weights(BOARD_SIZE))
        start.parent.mkdir(parents=True, exist_ok=True)
        with atomic_writer(start) as handle:
            handle.write(source.read_bytes())
    binary = native_binary(run_dir / "bin")
    done = finished_generations(run_dir)
    teacher = _teacher(cfg) if cfg.train.teacher_weight > 0 else None
    from torch.utils.tensorboard import SummaryWriter  # heavy; only once the run starts

    writer = SummaryWriter(str(run_dir / "tb"))
    bar = tqdm(
        total=cfg.generations,
        initial=min(len(done), cfg.generations),
        unit="gen",
        desc="expert",
        dynamic_ncols=True,
        disable=not progress,
    )
    try:
        for generation in range(1, cfg.generations + 1):
            if generation in done:
                continue
            record = _generation(cfg, rules, run_dir, shards, binary, generation, teacher, log, progress)
            append_metrics(run_dir, record, sort_keys=True)
            done[generation] = record
            for key, value in record.items():
                if isinstance(value, int | float) and key != "generation":
                    writer.add_scalar(f"expert/{key}", value, generation)
            writer.flush()
            bar.update(1)
            bar.set_postfix(win=f"{record.get('win_rate', float('nan')):.2f}", refresh=False)
    finally:
        bar.close()
        writer.close()
    return [done[k] for k in sorted(done)]


def _generation(cfg, rules, run_dir, shards, binary, generation, teacher, log, progress) -> dict:
    started = time.monotonic()
    previous = student_path(run_dir, generation - 1)
    have = shard_games(shards, generation)
    missing = cfg.games_per_generation - have
    record: dict = {"generation": generation}
    if missing > 0:
        log(f"generation {generation}: self-play, {missing} games ({have} kept) at {cfg.sims} sims")
        games_bar = tqdm(
            total=cfg.games_per_generation,
            initial=have,
            unit="game",
            leave=False,
            desc=f"g{generation} self-play",
            dynamic_ncols=True,
            disable=not progress,
        )
        # seeds differ per generation and per resumed part (``have``), so no game is repeated
        seed = cfg.seed * 1_000_003 + generation * 10_007 + have * 101
        totals = generate(
            binary,
            previous,
            shards,
            games=missing,
            processes=cfg.processes,
            generation=generation,
            sims=cfg.sims,
            temperature_moves=cfg.temperature_moves,
            seed=seed,
            on_game=lambda _: games_bar.update(1),
        )
        games_bar.close()
        record.update(
            selfplay_games=totals.games,
            selfplay_positions=totals.positions,
            positions_per_cpu_second=totals.positions / max(totals.cpu_seconds, 1e-9),
        )
    new = student_path(run_dir, generation)
    if not new.is_file():
        samples = newest_samples(shards, cfg.window_samples)
        net = load_student(previous, BOARD_SIZE)
        targets = teacher_targets(teacher, rules, samples) if teacher is not None else None
        log(f"generation {generation}: training on {len(samples)} positions, {cfg.train.steps} steps")
        student = StudentConfig(net.width, net.hidden_units, net.mixing)
        result = distill(
            rules,
            samples,
            student,
            cfg.train,
            targets,
            seed=cfg.seed + generation,
            net=net,
            progress=progress,
        )
        write_weights(result.net, new, meta={"expert_generation": generation})
        fit = result.holdout or result.train
        record.update({f"fit_{k}": v for k, v in fit.items()})
        record["train_samples"] = len(samples)
    if cfg.rate_games > 0:
        out = run_dir / "rating" / f"g{generation:04d}"
        if out.exists():
            shutil.rmtree(out)  # a rating cut off by a kill is played again
        log(f"generation {generation}: rating against generation {generation - 1}, {cfg.rate_games} games")
        rating = rate(
            binary,
            new,
            previous,
            games=cfg.rate_games,
            sims=cfg.rate_sims,
            time_limit=cfg.rate_time,
            jobs=cfg.processes,
            seed=cfg.seed + generation,
            out=out,
        )
        record.update(
            win_rate=rating.win_rate,
            win_rate_low=rating.interval[0],
            win_rate_high=rating.interval[1],
            mean_points=rating.mean_points,
            previous_points=rating.previous_points,
            rate_games=rating.games,
        )
    record["seconds"] = time.monotonic() - started
    log(
        f"generation {generation}: done in {record['seconds']:.0f} s"
        + (
            f", win rate {record['win_rate']:.2f} against the previous student"
            if "win_rate" in record
            else ""
        )
    )
    return record
