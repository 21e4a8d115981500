"""The student network (torch) and its distillation from a teacher's self-play.

The student is the network the CodeCup bot runs in pure Python (``tw_rl.codecup.network``,
which documents the shape and why; this module is its torch twin and trains it).  Inputs are
three integer codes per cell (owner x height, my x their sight, legality x territory) plus two
global flags, all from the scalar rules' cheap facts; the embedding is a sum of table rows,
one neighbourhood step (neighbour messages summed, / 6), a ReLU, then a policy logit per cell
and, from the mean over cells through one hidden layer, the pass logit and a tanh value.

Measured pure-Python cost (``NetworkEvaluator.evaluate``, territory given; details in
``tw_rl.codecup.network``): width 32 / hidden 32, 0.47 ms an evaluation (~2,100 a second,
budget 500), of which the mixing step is 0.39 ms; width 16: 3,400/s, width 48: 1,540/s.
Distilled from ``runs/default-60min`` (65,470 samples, teacher ckpt-g28, 3,000 steps,
teacher_weight 0.5), the holdout fit barely depends on the width: policy KL 0.461 / 0.448 /
0.443 / 0.435 nats and value MSE 0.097 / 0.094 / 0.092 / 0.091 at width 16 / 24 / 32 / 48;
"directional" mixing (a hex convolution, 3x the training time) gave 0.447 / 0.091, no
better than "mean".  Defaults: width 32, hidden 32, mean.  Sanity check of that student: its
raw policy (no search) beat random and greedy 20-0 each, and the bot with it beat the bot
with the territory evaluator 10-0 at 64 simulations a move (equal time: not measured yet).

Distillation (``distill``): positions of the teacher's self-play shards; targets are the
stored search policy and the game result (value, tanh output, squared error) and, as an
auxiliary head that is not exported, the final territory per cell; with ``teacher_weight``
> 0 the teacher's own policy and value on the same positions are mixed into the targets.
Each drawn sample gets one of the 12 board symmetries; the student's inputs are symmetric
per cell, so the codes are computed once and permuted with the cells (as the learner permutes
owner, height, policy and territory).  With ``mixing="mean"`` the student is itself invariant
under the symmetries, so there the augmentation changes nothing; it matters for
``mixing="directional"``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from tw_rl.codecup.network import MAX_HEIGHT, MIXINGS, NUM_GLOBALS, OFFSETS, ROWS
from tw_rl.core.hexgrid import hexgrid, inverse_permutation
from tw_rl.core.rules import Rules
from tw_rl.core.state import EMPTY, NEUTRAL, RED, State
from tw_rl.training.replay_buffer import ReplayWindow, Samples

# ------------------------------------------------------------------------------ configs


@dataclass
class StudentConfig:
    width: int = 32  # per-cell embedding width W
    hidden: int = 32  # hidden units of the value / pass MLP
    mixing: str = "mean"  # neighbourhood step: "mean" (symmetric) or "directional" (hex conv)


@dataclass
class DistillConfig:
    steps: int = 3000  # gradient steps
    batch_size: int = 256  # samples per step
    learning_rate: float = 3e-3  # AdamW, cosine decay to 5% over the steps
    weight_decay: float = 1e-4  # AdamW weight decay
    value_weight: float = 1.0  # loss weights: value (squared error) and the auxiliary territory
    territory_weight: float = 0.25
    teacher_weight: float = 0.5  # share of the teacher's own policy / value in the targets (0: none)
    symmetries: bool = True  # a random one of the 12 board symmetries per drawn sample
    holdout: float = 0.05  # share of the newest samples kept aside to measure the fit
    eval_every: int = 250  # steps between holdout evaluations (0 = only at the end)


@dataclass
class ExportConfig:
    run_dir: str = ""  # a training run: shards from <run_dir>/selfplay, teacher <run_dir>/checkpoints
    teacher: str = ""  # teacher checkpoint ("" = the newest in <run_dir>/checkpoints)
    samples: str = ""  # shard folder ("" = <run_dir>/selfplay)
    window: int = 100000  # newest samples used
    baseline_games: int = 0  # games the teacher (with search) plays against each baseline for more positions
    baselines: list[str] = field(default_factory=lambda: ["random", "greedy"])  # of tw_rl.core.baselines
    baseline_simulations: int = 32  # the teacher's search in those games (full searches; cheap ones: 1/4)
    size: int = 6  # cells per board side (must match the shards and the teacher)
    out: str = ""  # weights file ("" = <hydra output dir>/student.twnet)
    quantization: str = "float16"  # "float16" or "int8" (per-row scales)
    student: StudentConfig = field(default_factory=StudentConfig)
    distill: DistillConfig = field(default_factory=DistillConfig)
    verify: int = 64  # holdout positions compared: file (pure Python) vs the float32 student
    seed: int = 0  # seeds numpy and torch
    threads: int = 1  # torch CPU threads (0 = torch's default)
    progress: bool = True  # a progress bar in the terminal
    tensorboard: str = ""  # TensorBoard log folder ("" = <hydra output dir>/tb; "none" = off)


# ------------------------------------------------------------------------------ inputs


def student_inputs(rules: Rules, state: State) -> tuple[np.ndarray, np.ndarray]:
    """(codes [B, N, 3] int64, globals [B, 2] float32): the student's inputs, as the
    pure-Python ``tw_rl.codecup.network.cell_codes`` computes them one position at a time."""
    if not rules.codecup:
        raise ValueError("the student network is made for the codecup variant")
    rows = np.arange(state.batch_size)
    me = state.to_move.astype(np.int64)
    mi = me - 1
    sm = state.sight[rows, mi].astype(np.int64)
    so = state.sight[rows, 1 - mi].astype(np.int64)
    owner = state.owner
    cat = np.where(owner == EMPTY, 0, np.where(owner == NEUTRAL, 3, np.where(owner == me[:, None], 1, 2)))
    h = np.minimum(state.height.astype(np.int64), MAX_HEIGHT)
    rules.ensure_territory(state)
    mine = state.territory[rows, mi].astype(np.int64)
    theirs = state.territory[rows, 1 - mi].astype(np.int64)
    legal_me = (sm > h) & (so <= sm)
    legal_them = (so > h) & (sm <= so)
    codes = np.stack(
        [cat * 7 + h, sm * 7 + so, legal_me * 8 + legal_them * 4 + mine + 2 * theirs], axis=-1
    ).astype(np.int64)
    glob = np.stack([me == RED, state.passes > 0], axis=1).astype(np.float32)
    return codes, glob


# ------------------------------------------------------------------------------ network


class StudentNet(nn.Module):
    """The student (see ``tw_rl.codecup.network`` for the formulas it shares)."""

    def __init__(self, size: int, width: int = 32, hidden: int = 32, mixing: str = "mean"):
        super().__init__()
        if mixing not in MIXINGS:
            raise ValueError(f"mixing must be one of {MIXINGS}, got {mixing!r}")
        if width < 1 or hidden < 1:
            raise ValueError("width and hidden must be positive")
        grid = hexgrid(size)
        self.size = size
        self.num_cells = grid.num_cells
        self.width = width
        self.hidden_units = hidden
        self.mixing = mixing
        self.directions = 1 if mixing == "mean" else 6
        d = self.directions
        self.self_table = nn.Parameter(torch.randn(ROWS, width) * 0.3)
        self.self_bias = nn.Parameter(torch.zeros(width))
        self.msg_table = nn.Parameter(torch.randn(d * ROWS, width) * 0.3)
        self.edge = nn.Parameter(torch.zeros(d, width))
        self.policy = nn.Linear(width, 1)
        self.hidden = nn.Linear(width, hidden)
        self.hidden_g = nn.Linear(NUM_GLOBALS, hidden, bias=False)
        self.value = nn.Linear(hidden, 1)
        self.pass_head = nn.Linear(hidden, 1)
        self.territory = nn.Linear(width, 1)  # auxiliary (training only; not exported)
        nbr = np.where(grid.neighbours >= 0, grid.neighbours, grid.num_cells)
        self.register_buffer("nbr", torch.as_tensor(nbr, dtype=torch.long), persistent=False)
        dirs = torch.arange(6) if d == 6 else torch.zeros(6, dtype=torch.long)
        self.register_buffer("dirs", dirs, persistent=False)
        self.register_buffer("offsets", torch.tensor(OFFSETS, dtype=torch.long), persistent=False)
        self.register_buffer("dir_rows", torch.arange(d, dtype=torch.long) * ROWS, persistent=False)

    def config(self) -> StudentConfig:
        return StudentConfig(width=self.width, hidden=self.hidden_units, mixing=self.mixing)

    def cells(self, codes: torch.Tensor) -> torch.Tensor:
        """h [B, N, W] from the codes [B, N, 3]."""
        idx = codes + self.offsets  # [B, N, 3] rows of the tables
        x = self.self_table[idx].sum(2) + self.self_bias
        msg = self.msg_table[idx[:, :, None, :] + self.dir_rows[None, None, :, None]].sum(3)  # [B,N,D,W]
        b = msg.shape[0]
        msg = torch.cat([msg, self.edge.expand(b, 1, -1, -1)], dim=1)  # index N: off the board
        mixed = msg[:, self.nbr, self.dirs, :].sum(2)  # [B, N, 6, W] -> [B, N, W]
        return F.relu(x + mixed / 6.0)

    def forward(self, codes: torch.Tensor, glob: torch.Tensor) -> dict[str, torch.Tensor]:
        h = self.cells(codes)
        z = F.relu(self.hidden(h.mean(1)) + self.hidden_g(glob))
        policy = torch.cat([self.policy(h)[..., 0], self.pass_head(z)], dim=1)
        return {
            "policy": policy,  # [B, N+1] logits
            "value": torch.tanh(self.value(z)[:, 0]),  # [B] for the side to move
            "territory": torch.tanh(self.territory(h)[..., 0]),  # [B, N] auxiliary
        }


def build_student(size: int, cfg: StudentConfig) -> StudentNet:
    return StudentNet(size, cfg.width, cfg.hidden, cfg.mixing)


# ------------------------------------------------------------------------------ data


def load_samples(folder: Path, window: int) -> Samples:
    """The newest ``window`` samples of a shard folder (oldest first)."""
    replay = ReplayWindow(Path(folder), window)
    if not replay.refresh():
        raise FileNotFoundError(f"no self-play samples in {folder}")
    return replay.samples


def teacher_targets(
    teacher: nn.Module, rules: Rules, samples: Samples, batch: int = 512
) -> tuple[np.ndarray, np.ndarray]:
    """(policy [S, N+1] float32, value [S] float32): the teacher's masked-softmax policy and
    expected result (win - loss) on the samples' positions."""
    from tw_rl.training.net import NetPolicyValue

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


def augment(grid, batch: Prepared, rng: np.random.Generator) -> Prepared:
    """Each sample under a random one of the 12 symmetries (cells permuted, the pass fixed)."""
    inverse = np.stack([inverse_permutation(p) for p in grid.symmetries])
    gather = inverse[rng.integers(0, 12, size=len(batch))]  # new[i] = old[inverse[i]]

    def cells(a: np.ndarray) -> np.ndarray:
        index = gather if a.ndim == 2 else gather[:, :, None]
        return np.take_along_axis(a, index, axis=1)

    def actions(a: np.ndarray) -> np.ndarray:
        return np.concatenate([cells(a[:, :-1]), a[:, -1:]], axis=1)

    return Prepared(
        cells(batch.codes),
        batch.glob,
        actions(batch.legal),
        actions(batch.policy),
        batch.value,
        cells(batch.territory),
    )


# ------------------------------------------------------------------------------ training


def losses(net: StudentNet, batch: dict[str, torch.Tensor], cfg: DistillConfig) -> dict[str, torch.Tensor]:
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
def evaluate_fit(net: StudentNet, data: Prepared, cfg: DistillConfig, batch: int = 1024) -> dict[str, float]:
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
    net: StudentNet
    train: dict[str, float]  # mean losses of the last eval_every steps (augmented batches)
    holdout: dict[str, float]  # losses on the held-out samples ({} without any)
    first: dict[str, float]  # losses of the first step
    holdout_data: Prepared | None
    seconds: float


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
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.steps, unit="step", dynamic_ncols=True, desc="distill")
    every = cfg.eval_every if cfg.eval_every > 0 else cfg.steps
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
        if step == 1:
            first = values
        for k, v in values.items():
            window.setdefault(k, []).append(v)
        if step % every == 0 or step == cfg.steps:
            last_train = {k: float(np.mean(v)) for k, v in window.items()}
            window = {}
            if writer is not None:
                for k, v in last_train.items():
                    writer.add_scalar(f"distill/train_{k}", v, step)
                writer.add_scalar("distill/learning_rate", schedule.get_last_lr()[0], step)
            if holdout is not None:
                scores = evaluate_fit(net, holdout, cfg)
                if writer is not None:
                    for k, v in scores.items():
                        writer.add_scalar(f"distill/holdout_{k}", v, step)
            if log is not None:
                shown = scores or last_train
                log(
                    f"step {step}: {'holdout' if scores else 'train'} policy {shown['policy']:.3f} "
                    f"(kl {shown['policy_kl']:.3f}, top1 {shown['top1']:.2f}) value {shown['value']:.3f} "
                    f"territory {shown['territory']:.3f}"
                )
        if bar is not None:
            bar.update(1)
            if step % 20 == 0:
                bar.set_postfix(loss=f"{values['total']:.3f}", refresh=False)
    if bar is not None:
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


# ------------------------------------------------------------------------------ export


@dataclass
class ExportReport:
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
        fit = r.holdout or r.train
        out = [
            f"wrote {self.out}: {self.bytes:,} bytes",
            f"distilled on {self.samples:,} samples in {r.seconds:.0f} s "
            f"(teacher: {self.teacher or 'none'}); "
            f"{'holdout' if r.holdout else 'train'}: policy {fit['policy']:.3f} (kl {fit['policy_kl']:.3f}, "
            f"top1 {fit['top1']:.2f}), value mse {fit['value']:.3f}, territory mse {fit['territory']:.3f}",
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


def _checks(net: StudentNet, rules: Rules, data: Samples, path: Path, count: int):
    """(quantization errors on all of data; pure-Python parity and evaluations per second on
    its first ``count`` positions)."""
    from tw_rl.codecup.network import NetworkEvaluator
    from tw_rl.codecup.rules import Board
    from tw_rl.export.weights_file import _masked_softmax, quantization_error, scalar_position, torch_outputs

    state = rules.position(data.owner, data.height, data.to_move, data.passes)
    quant = {q: quantization_error(net, rules, state, q) for q in ("int8", "float16")}
    if count <= 0:
        return quant, {}, 0.0
    part = data[:count]
    state = state[:count]
    evaluator = NetworkEvaluator(str(path), rules.size)
    logits, value, legal = torch_outputs(net, rules, state)
    probs = _masked_softmax(logits, legal)
    board = Board(rules.size)
    positions = [
        scalar_position(board, part.owner[i], part.height[i], part.to_move[i], part.passes[i])
        for i in range(len(part))
    ]
    territories = [p.territory() for p in positions]
    dv = dp = 0.0
    for i, (pos, terr) in enumerate(zip(positions, territories, strict=True)):
        priors, v = evaluator.evaluate(pos, terr)
        dv = max(dv, abs(v - float(value[i])))
        dp = max(dp, max(abs(p - probs[i, m]) for m, p in priors.items()))
    start = time.perf_counter()
    for pos, terr in zip(positions, territories, strict=True):
        evaluator.evaluate(pos, terr)
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
    from tw_rl.config import SearchConfigSchema
    from tw_rl.core.baselines import BASELINES
    from tw_rl.training.net import NetPolicyValue
    from tw_rl.training.selfplay import play_games

    unknown = [b for b in cfg.baselines if b not in BASELINES]
    if not cfg.baselines:
        raise ValueError("baseline_games > 0 needs at least one baseline in baselines")
    if unknown:
        raise ValueError(f"unknown baseline(s) {unknown}; one of {sorted(BASELINES)}")
    if cfg.baseline_simulations < 1:
        raise ValueError(f"baseline_simulations must be at least 1, got {cfg.baseline_simulations}")
    sims = cfg.baseline_simulations
    search = SearchConfigSchema(simulations=sims, cheap_simulations=max(1, sims // 4))
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


def export_student(cfg: ExportConfig, output_dir: Path, log: Callable[[str], None] = print) -> ExportReport:
    """Distil (teacher, shards of cfg) into a student and write its weights file."""
    from tw_rl.codecup.weights import QUANTIZATIONS
    from tw_rl.export.weights_file import write_weights
    from tw_rl.training.learner import latest_checkpoint, load_checkpoint, net_from_checkpoint

    if cfg.quantization not in QUANTIZATIONS:
        raise ValueError(f"quantization must be one of {QUANTIZATIONS}, got {cfg.quantization!r}")
    if cfg.threads > 0:
        torch.set_num_threads(cfg.threads)
    run = Path(cfg.run_dir) if cfg.run_dir else None
    folder = Path(cfg.samples) if cfg.samples else (run / "selfplay" if run else None)
    if folder is None:
        raise ValueError("give run_dir or samples (a folder of self-play shards)")
    rules = Rules(cfg.size)
    samples = load_samples(folder, cfg.window)
    if samples.owner.shape[1] != rules.num_cells:
        raise ValueError(f"the shards in {folder} are not of the size-{cfg.size} board")
    log(f"{len(samples):,} samples from {folder}")
    if cfg.baseline_games < 0:
        raise ValueError(f"baseline_games must be >= 0, got {cfg.baseline_games}")
    teacher_name = None
    targets = None
    if cfg.distill.teacher_weight > 0 or cfg.baseline_games > 0:
        if cfg.teacher:
            teacher_path = Path(cfg.teacher)
            payload = load_checkpoint(teacher_path)
        elif run is not None:
            found = latest_checkpoint(run / "checkpoints")
            if found is None:
                raise ValueError(f"no checkpoint in {run / 'checkpoints'} (or set distill.teacher_weight=0)")
            teacher_path, payload = found
        else:
            raise ValueError("teacher_weight > 0 and baseline_games > 0 need teacher or run_dir")
        if int(payload["size"]) != cfg.size:
            raise ValueError(f"the teacher {teacher_path} plays the size-{payload['size']} board")
        teacher_name = str(teacher_path)
        teacher = net_from_checkpoint(payload)
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
        from torch.utils.tensorboard import SummaryWriter

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
    quant, parity, rate = _checks(result.net, rules, held, out, cfg.verify)
    if writer is not None:
        for q, e in quant.items():
            writer.add_scalar(f"export/{q}_value_error", e["value"], cfg.distill.steps)
            writer.add_scalar(f"export/{q}_policy_error", e["policy"], cfg.distill.steps)
        if rate:
            writer.add_scalar("export/evaluations_per_second", rate, cfg.distill.steps)
        writer.close()
    return ExportReport(out, size, len(samples), teacher_name, result, quant, parity, rate, len(held))
