"""The export pipeline: from a training run to a checked student weights file (``export_student``).

Shards and teacher of the run -> (optionally) more positions from the teacher's games against
the baselines -> the teacher's targets -> ``tw_rl.export.distill.distill`` -> the weights file
(``tw_rl.export.weights_file``) -> checks of what the file costs: the quantization error on the
holdout and the pure-Python evaluator (``tw_rl.codecup.network``) against the float32 student,
with its speed.  ``ExportReport.lines`` says all that in a few lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.utils.tensorboard import SummaryWriter

from tw_rl.codecup.network import NetworkEvaluator
from tw_rl.codecup.rules import Board
from tw_rl.codecup.weights import QUANTIZATIONS
from tw_rl.config import ExportConfig
from tw_rl.core.baselines import BASELINES
from tw_rl.core.mcts import SearchConfig
from tw_rl.core.rules import Rules
from tw_rl.export.distill import DistillResult, distill, fit_text, load_samples, teacher_targets
from tw_rl.export.student import StudentNet, masked_softmax, torch_outputs
from tw_rl.export.weights_file import quantization_error, write_weights
from tw_rl.scalar_position import scalar_position
from tw_rl.training.checkpoint import (
    check_size,
    latest_checkpoint,
    load_checkpoint,
    net_from_checkpoint,
    resolve_checkpoint,
)
from tw_rl.training.net import NetPolicyValue
from tw_rl.training.replay_buffer import Samples
from tw_rl.training.selfplay import play_games


@dataclass
class ExportReport:
    """What ``export_student`` wrote and measured; ``lines()`` says it for a terminal."""

    out: Path
    bytes: int
    samples: int
    teacher: str | None
    result: DistillResult
    quantization: dict[str, dict[str, float]]  # "int8" / "float16" -> max abs errors vs float32
    parity: dict[str, float]  # the written file in pure Python vs the float32 student
    evals_per_second: float  # pure-Python NetworkEvaluator on the verified positions
    checked: int = 0  # holdout positions of the quantization check

    def lines(self) -> list[str]:
        r = self.result
        out = [
            f"wrote {self.out}: {self.bytes:,} bytes",
            f"distilled on {self.samples:,} samples in {r.seconds:.0f} s "
            f"(teacher: {self.teacher or 'none'}); "
            f"{'holdout' if r.holdout else 'train'}: {fit_text(r.holdout or r.train)}",
        ]
        for q, e in self.quantization.items():
            out.append(
                f"{q} vs float32 on {self.checked:,} holdout positions: max |value error| "
                f"{e['value']:.2e}, max |policy error| {e['policy']:.2e}"
            )
        if self.parity:
            out.append(
                f"file in pure Python vs float32 student: max |value| {self.parity['value']:.2e}, "
                f"max |policy| {self.parity['policy']:.2e}; {self.evals_per_second:.0f} evaluations/s"
            )
        return out


def check_file(net: StudentNet, rules: Rules, data: Samples, path: Path, count: int):
    """(quantization errors on all of data; pure-Python parity and evaluations per second of the
    file at ``path`` on its first ``count`` positions)."""
    state = rules.position(data.owner, data.height, data.to_move, data.passes)
    quant = {q: quantization_error(net, rules, state, q) for q in ("int8", "float16")}
    if count <= 0:
        return quant, {}, 0.0
    part = data[:count]
    state = state[:count]
    evaluator = NetworkEvaluator(str(path), rules.size)
    logits, value, legal = torch_outputs(net, rules, state)
    probs = masked_softmax(logits, legal)
    board = Board(rules.size)
    positions = [
        scalar_position(board, part.owner[i], part.height[i], part.to_move[i], part.passes[i])
        for i in range(len(part))
    ]
    dv = dp = 0.0
    for i, pos in enumerate(positions):
        priors, v = evaluator.evaluate(pos)
        dv = max(dv, abs(v - float(value[i])))
        dp = max(dp, max(abs(p - probs[i, m]) for m, p in priors.items()))
    start = time.perf_counter()
    for pos in positions:
        evaluator.evaluate(pos)
    rate = len(positions) / max(time.perf_counter() - start, 1e-9)
    return quant, {"value": dv, "policy": dp}, rate


def baseline_samples(
    teacher: nn.Module,
    rules: Rules,
    cfg: ExportConfig,
    rng: np.random.Generator,
    log: Callable[[str], None] = print,
) -> Samples:
    """Positions of games the teacher (searching) plays against each of ``cfg.baselines``:
    ``cfg.baseline_games`` games per baseline, seats alternating; targets as in self-play
    (the teacher's search policy on fully searched positions, the result, the territory)."""
    unknown = [b for b in cfg.baselines if b not in BASELINES]
    if not cfg.baselines:
        raise ValueError("baseline_games > 0 needs at least one baseline in baselines")
    if unknown:
        raise ValueError(f"unknown baseline(s) {unknown}; one of {sorted(BASELINES)}")
    if cfg.baseline_simulations < 1:
        raise ValueError(f"baseline_simulations must be at least 1, got {cfg.baseline_simulations}")
    sims = cfg.baseline_simulations
    search = SearchConfig(simulations=sims, cheap_simulations=max(1, sims // 4))
    policy_value = NetPolicyValue(teacher, rules, "cpu")
    parts: list[Samples] = []
    for name in cfg.baselines:
        started = time.monotonic()
        stats = play_games(
            rules,
            policy_value,
            search,
            cfg.baseline_games,
            min(cfg.baseline_games, 64),
            rng,
            lambda games, samples: parts.append(samples),
            opponent=BASELINES[name],
        )
        log(
            f"teacher vs {name}: {stats.games} games, won {stats.network_wins}, "
            f"{stats.samples:,} positions in {time.monotonic() - started:.0f} s"
        )
    return Samples.concatenate(parts)


def _teacher(cfg: ExportConfig, run: Path | None) -> tuple[Path, nn.Module]:
    """The teacher checkpoint of an export (``cfg.teacher``, else the run's newest) and its net."""
    if cfg.teacher:
        path = resolve_checkpoint(cfg.teacher)
        payload = load_checkpoint(path)
    elif run is not None:
        found = latest_checkpoint(run / "checkpoints")
        if found is None:
            raise ValueError(f"no checkpoint in {run / 'checkpoints'} (or set distill.teacher_weight=0)")
        path, payload = found
    else:
        raise ValueError("teacher_weight > 0 and baseline_games > 0 need teacher or run_dir")
    check_size(payload, cfg.size, path, "the export")
    return path, net_from_checkpoint(payload)


def export_student(cfg: ExportConfig, output_dir: Path, log: Callable[[str], None] = print) -> ExportReport:
    """Distil (teacher, shards of cfg) into a student and write its weights file."""
    if cfg.quantization not in QUANTIZATIONS:
        raise ValueError(f"quantization must be one of {QUANTIZATIONS}, got {cfg.quantization!r}")
    if cfg.baseline_games < 0:
        raise ValueError(f"baseline_games must be >= 0, got {cfg.baseline_games}")
    if cfg.threads > 0:
        torch.set_num_threads(cfg.threads)
    run = Path(cfg.run_dir) if cfg.run_dir else None
    folder = Path(cfg.samples) if cfg.samples else (run / "selfplay" if run else None)
    if folder is None:
        raise ValueError("give run_dir or samples (a folder of self-play shards)")
    rules = Rules(cfg.size)
    samples = load_samples(folder, cfg.window, size=cfg.size)  # ShardFormatError for another size
    log(f"{len(samples):,} samples from {folder}")
    teacher_name = None
    targets = None
    if cfg.distill.teacher_weight > 0 or cfg.baseline_games > 0:
        teacher_path, teacher = _teacher(cfg, run)
        teacher_name = str(teacher_path)
        if cfg.baseline_games > 0:
            # First, so that the holdout (the newest samples, at the end) stays self-play.
            extra = baseline_samples(teacher, rules, cfg, np.random.default_rng(cfg.seed), log)
            samples = Samples.concatenate([extra, samples])
            log(f"{len(samples):,} samples in all")
        if cfg.distill.teacher_weight > 0:
            started = time.monotonic()
            targets = teacher_targets(teacher, rules, samples)
            log(f"teacher {teacher_path.name}: outputs on every sample in {time.monotonic() - started:.0f} s")
    writer = None
    if cfg.tensorboard != "none":
        writer = SummaryWriter(cfg.tensorboard or str(Path(output_dir) / "tb"))
    try:
        result = distill(
            rules, samples, cfg.student, cfg.distill, targets, cfg.seed, writer, cfg.progress, log
        )
    finally:
        if writer is not None:
            writer.flush()
    out = Path(cfg.out) if cfg.out else Path(output_dir) / "student.twnet"
    fit = result.holdout or result.train
    meta = {
        "teacher": teacher_name,
        "samples": len(samples),
        "baseline_games": {b: cfg.baseline_games for b in cfg.baselines} if cfg.baseline_games else {},
        "steps": cfg.distill.steps,
        "teacher_weight": cfg.distill.teacher_weight,
        "fit": {k: round(v, 5) for k, v in fit.items()},
    }
    size = write_weights(result.net, out, cfg.quantization, meta)
    held = samples[len(samples) - max(int(len(samples) * cfg.distill.holdout), 1) :]
    quant, parity, rate = check_file(result.net, rules, held, out, cfg.verify)
    if writer is not None:
        for q, e in quant.items():
            writer.add_scalar(f"export/{q}_value_error", e["value"], cfg.distill.steps)
            writer.add_scalar(f"export/{q}_policy_error", e["policy"], cfg.distill.steps)
        if rate:
            writer.add_scalar("export/evaluations_per_second", rate, cfg.distill.steps)
        writer.close()
    return ExportReport(out, size, len(samples), teacher_name, result, quant, parity, rate, len(held))
