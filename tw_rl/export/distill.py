"""Distillation: training the student on a teacher's self-play positions.

``distill`` trains on positions of the teacher's self-play shards; targets are the stored
search policy and the game result (value, tanh output, squared error) and, as an auxiliary
head that is not exported, the final territory per cell; with ``teacher_weight`` > 0 the
teacher's own policy and value on the same positions are mixed into the targets.  Each drawn
sample gets one of the 12 board symmetries (``tw_rl.core.encode.random_symmetries``, as the
learner's); the student's inputs are symmetric per cell, so the codes are computed once and
permuted with the cells.  With ``mixing="mean"`` the student is itself invariant under the
symmetries, so there the augmentation changes nothing; it matters for ``mixing="directional"``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from tqdm import tqdm

from tw_rl.codecup.network import NUM_GLOBALS
from tw_rl.config import DistillConfig, StudentConfig
from tw_rl.core.encode import gather_actions, gather_cells, random_symmetries
from tw_rl.core.hexgrid import HexGrid
from tw_rl.core.rules import Rules
from tw_rl.export.student import StudentNet, build_student, student_inputs
from tw_rl.training.net import NetPolicyValue
from tw_rl.training.replay_buffer import ReplayWindow, Samples

# ------------------------------------------------------------------------------ data


def load_samples(folder: Path, window: int, *, size: int) -> Samples:
    """The newest ``window`` samples of a shard folder (oldest first), every shard of board size
    ``size`` (``ShardFormatError``, one line, for a shard of another size or format)."""
    newest = ReplayWindow(Path(folder), window, size=size)
    if not newest.refresh():
        raise FileNotFoundError(f"no self-play samples in {folder}")
    return newest.samples


def teacher_targets(
    teacher: nn.Module, rules: Rules, samples: Samples, batch: int = 512
) -> tuple[np.ndarray, np.ndarray]:
    """(policy [S, N+1] float32, value [S] float32): the teacher's masked-softmax policy and
    expected result (win - loss) on the samples' positions."""
    pv = NetPolicyValue(teacher, rules, "cpu", max_batch=batch)
    policy = np.zeros((len(samples), rules.num_actions), dtype=np.float32)
    value = np.zeros(len(samples), dtype=np.float32)
    for start in range(0, len(samples), batch):
        part = samples[start : start + batch]
        state = rules.position(part.owner, part.height, part.to_move, part.passes)
        policy[start : start + len(part)], value[start : start + len(part)] = pv(state)
    return policy, value


@dataclass
class Prepared:
    """Samples turned into student inputs and targets (un-augmented)."""

    codes: np.ndarray  # [S, N, 3] int64
    glob: np.ndarray  # [S, 2] float32
    legal: np.ndarray  # [S, N+1] bool
    policy: np.ndarray  # [S, N+1] float32 target
    value: np.ndarray  # [S] float32 target
    territory: np.ndarray  # [S, N] float32 target

    def __len__(self) -> int:
        return len(self.value)

    def take(self, index: np.ndarray) -> Prepared:
        return Prepared(*(getattr(self, k)[index] for k in self.__dataclass_fields__))


def prepare(
    rules: Rules,
    samples: Samples,
    teacher: tuple[np.ndarray, np.ndarray] | None = None,
    teacher_weight: float = 0.0,
    chunk: int = 2048,
) -> Prepared:
    """Student inputs and targets of samples; ``teacher`` = ``teacher_targets(...)``."""
    parts = []
    for start in range(0, len(samples), chunk):
        part = samples[start : start + chunk]
        state = rules.position(part.owner, part.height, part.to_move, part.passes)
        codes, glob = student_inputs(rules, state)
        parts.append((codes, glob, rules.legal_mask(state)))
    n = rules.num_cells
    if parts:
        codes, glob, legal = (np.concatenate([p[i] for p in parts]) for i in range(3))
    else:
        codes = np.zeros((0, n, 3), np.int64)
        glob = np.zeros((0, NUM_GLOBALS), np.float32)
        legal = np.zeros((0, n + 1), bool)
    policy = samples.policy.astype(np.float32)
    policy = policy / np.maximum(policy.sum(axis=1, keepdims=True), 1e-9)
    value = samples.value.astype(np.float32)
    if teacher is not None and teacher_weight > 0:
        a = float(teacher_weight)
        policy = (1 - a) * policy + a * teacher[0]
        value = (1 - a) * value + a * teacher[1]
    return Prepared(codes, glob, legal, policy, value, samples.territory.astype(np.float32))


def augment(grid: HexGrid, batch: Prepared, rng: np.random.Generator) -> Prepared:
    """Each sample under a random one of the 12 symmetries (cells permuted, the pass fixed)."""
    gather = random_symmetries(grid, len(batch), rng)
    return Prepared(
        gather_cells(batch.codes, gather),
        batch.glob,
        gather_actions(batch.legal, gather),
        gather_actions(batch.policy, gather),
        batch.value,
        gather_cells(batch.territory, gather),
    )


# ------------------------------------------------------------------------------ training


def losses(net: StudentNet, batch: dict[str, torch.Tensor], cfg: DistillConfig) -> dict[str, torch.Tensor]:
    """The weighted loss of a batch (``total``) and its parts, agreement on the best move included."""
    out = net(batch["codes"], batch["glob"])
    logits = out["policy"].masked_fill(~batch["legal"], -1e9)
    logp = F.log_softmax(logits, dim=1)
    target = batch["policy"]
    policy = -(target * logp).sum(1).mean()
    entropy = -(target * torch.log(target.clamp_min(1e-12))).sum(1).mean()
    value = F.mse_loss(out["value"], batch["value"])
    territory = F.mse_loss(out["territory"], batch["territory"])
    total = policy + cfg.value_weight * value + cfg.territory_weight * territory
    agree = (logits.argmax(1) == target.argmax(1)).float().mean()
    return {
        "total": total,
        "policy": policy,
        "policy_kl": policy - entropy,  # cross-entropy minus the target's entropy
        "value": value,
        "territory": territory,
        "top1": agree,  # the student's best move is the target's best move
    }


def _tensors(batch: Prepared) -> dict[str, torch.Tensor]:
    return {
        "codes": torch.from_numpy(batch.codes),
        "glob": torch.from_numpy(batch.glob),
        "legal": torch.from_numpy(batch.legal),
        "policy": torch.from_numpy(batch.policy),
        "value": torch.from_numpy(batch.value),
        "territory": torch.from_numpy(batch.territory),
    }


@torch.no_grad()
def score_fit(net: StudentNet, data: Prepared, cfg: DistillConfig, batch: int = 1024) -> dict[str, float]:
    """Mean losses of the student on prepared (un-augmented) data."""
    net.eval()
    sums: dict[str, float] = {}
    for start in range(0, len(data), batch):
        part = data.take(np.arange(start, min(start + batch, len(data))))
        for k, v in losses(net, _tensors(part), cfg).items():
            sums[k] = sums.get(k, 0.0) + float(v) * len(part)
    return {k: v / max(len(data), 1) for k, v in sums.items()}


@dataclass
class DistillResult:
    """A distilled student and how well it fits its targets."""

    net: StudentNet
    train: dict[str, float]  # mean losses of the last holdout_every steps (augmented batches)
    holdout: dict[str, float]  # losses on the held-out samples ({} without any)
    first: dict[str, float]  # losses of the first step
    holdout_data: Prepared | None
    seconds: float


def fit_text(fit: dict[str, float]) -> str:
    """The losses of a fit in a few words (log lines, the export report)."""
    return (
        f"policy {fit['policy']:.3f} (kl {fit['policy_kl']:.3f}, top1 {fit['top1']:.2f}), "
        f"value mse {fit['value']:.3f}, territory mse {fit['territory']:.3f}"
    )


def distill(
    rules: Rules,
    samples: Samples,
    student: StudentConfig,
    cfg: DistillConfig,
    teacher: tuple[np.ndarray, np.ndarray] | None = None,
    seed: int = 0,
    writer=None,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
    net: StudentNet | None = None,
) -> DistillResult:
    """Train a student on samples (see the module docstring); returns it and its fit.

    ``teacher`` = ``teacher_targets(...)`` for the same samples (mixed in by
    ``cfg.teacher_weight``); ``writer`` a TensorBoard ``SummaryWriter`` or None.
    """
    if cfg.steps < 1 or cfg.batch_size < 1:
        raise ValueError("steps and batch_size must be positive")
    if not 0.0 <= cfg.teacher_weight <= 1.0:
        raise ValueError(f"teacher_weight must be in [0, 1], got {cfg.teacher_weight}")
    if cfg.teacher_weight > 0 and teacher is None:
        raise ValueError("teacher_weight > 0 needs the teacher's targets")
    started = time.monotonic()
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    data = prepare(rules, samples, teacher, cfg.teacher_weight)
    held = int(len(data) * cfg.holdout) if len(data) >= 20 else 0
    train = data.take(np.arange(len(data) - held))
    holdout = data.take(np.arange(len(data) - held, len(data))) if held else None
    if net is None:
        net = build_student(rules.size, student)
    optimizer = torch.optim.AdamW(net.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(s, cfg.steps) / cfg.steps))
    )
    bar = tqdm(total=cfg.steps, unit="step", dynamic_ncols=True, desc="distill", disable=not progress)
    every = cfg.holdout_every if cfg.holdout_every > 0 else cfg.steps
    window: dict[str, list[float]] = {}
    first: dict[str, float] = {}
    last_train: dict[str, float] = {}
    scores: dict[str, float] = {}
    for step in range(1, cfg.steps + 1):
        batch = train.take(rng.integers(0, len(train), size=cfg.batch_size))
        if cfg.symmetries:
            batch = augment(rules.grid, batch, rng)
        net.train()
        parts = losses(net, _tensors(batch), cfg)
        optimizer.zero_grad(set_to_none=True)
        parts["total"].backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        optimizer.step()
        schedule.step()
        values = {k: float(v.detach()) for k, v in parts.items()}
        first = first or values
        for k, v in values.items():
            window.setdefault(k, []).append(v)
        if step % every == 0 or step == cfg.steps:
            last_train = {k: float(np.mean(v)) for k, v in window.items()}
            window = {}
            scores = score_fit(net, holdout, cfg) if holdout is not None else {}
            _report(step, last_train, scores, schedule.get_last_lr()[0], writer, log)
        bar.update(1)
        if step % 20 == 0:
            bar.set_postfix(loss=f"{values['total']:.3f}", refresh=False)
    bar.close()
    net.eval()
    return DistillResult(
        net=net,
        train=last_train,
        holdout=scores,
        first=first,
        holdout_data=holdout,
        seconds=time.monotonic() - started,
    )


def _report(step: int, train: dict, holdout: dict, learning_rate: float, writer, log) -> None:
    """The fit so far to TensorBoard (``writer``) and as a line (``log``), either or both None."""
    if writer is not None:
        for k, v in train.items():
            writer.add_scalar(f"distill/train_{k}", v, step)
        writer.add_scalar("distill/learning_rate", learning_rate, step)
        for k, v in holdout.items():
            writer.add_scalar(f"distill/holdout_{k}", v, step)
    if log is not None:
        log(f"step {step}: {'holdout' if holdout else 'train'} {fit_text(holdout or train)}")
