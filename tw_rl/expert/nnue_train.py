"""Training the native network (``nnue-1``) on the native bot's self-play shards.

Targets, per recorded position (``tw_rl.training.replay_buffer``'s format 2): the search's
visit distribution (policy, cross-entropy over the side to move's legal cells), the result
(value: the win probability, binary cross-entropy on (result + 1) / 2) and the final territory
margin / cells (``score``: the margin head, squared error); the value's loss weighs
``value_weight`` (0.25: the result is one bit per game, and with the full weight the value head
learns the games by heart: on 2,000 games its holdout loss rose from step 250 on while its
training loss fell), and AdamW's decoupled weight decay holds the weights small. With
``student_share`` s (and ``teacher_share`` t) the targets are mixed with the shipped student's
(the Python bot's network) and the shipped default teacher's outputs (each run on each position
once and cached): policy (1 - s - t) visits + s student priors + t teacher priors, win
probability likewise from the result and (value + 1) / 2 of each, a smooth target where the
result is one bit per game. With ``search_value_share`` v the result itself is first mixed
with the search's value of the position where the shard holds one (the native self-play's
``search_value``: the root's children's values weighed by their visits): (1 - v) (result + 1)
/ 2 + v (search value + 1) / 2, a target of far less noise than one bit per game; shards
without it keep the result. The holdout keeps the self-play targets alone. With ``symmetries``
every drawn sample is seen under a random one of the board's 12 symmetries
(``symmetric_batch``: a permutation of the cells' rows, no new inputs to compute), twelve
positions for each recorded one. The inputs are computed in Python (``nnue_features``) once per
shard and cached under ``OUT/features``.

Games, not positions, are split: every ``holdout_every``-th shard is held out. The first
``qat_from`` share of the steps trains the float network, the rest the quantized one (the
twin's integer forward in the ``quantization`` scheme, "int16" by default, rounding passed
straight through), so that the integer file is the network that was trained last. Every
``checkpoint_every`` steps the run writes ``OUT/checkpoint.pt`` atomically (weights, optimiser,
step, seconds spent); a run started again on the same OUT goes on from there (a killed run
loses at most those steps; a batch is drawn from the seed and the step, so the resumed run
draws the same batches). Progress: a tqdm bar and TensorBoard scalars under ``OUT/tb``. At the
end: ``OUT/nnue.twnet`` (integer), ``OUT/nnue-float.twnet`` (float32) and ``OUT/summary.json``
(positions, steps, seconds, the holdout's losses float and integer).
"""

from __future__ import annotations

import io
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from tw_rl.codecup.evaluation import default_weights, make_evaluator
from tw_rl.codecup.rules import Board
from tw_rl.core.encode import random_symmetries
from tw_rl.core.hexgrid import hexgrid
from tw_rl.core.rules import Rules
from tw_rl.expert.nnue_features import my_legal_mask, position_of, samples_rows
from tw_rl.expert.nnue_net import NnueNet, load_weights, widened, write_weights
from tw_rl.export.distill import teacher_targets
from tw_rl.files import write_atomic
from tw_rl.native.nnue_file import DEFAULT_QUANTIZATION, PER_CELL, SCHEMES
from tw_rl.training.checkpoint import DEFAULT_TEACHER, load_net
from tw_rl.training.replay_buffer import SHARD_PATTERN, read_shard


class NnueTrainError(RuntimeError):
    """The run cannot start (no data, a mismatched checkpoint); the message says why in one line."""


@dataclass
class TrainConfig:
    data: list[Path]
    out: Path
    width: int = 128
    hidden: int = 32
    steps: int = 8000
    batch: int = 512
    lr: float = 2e-3
    qat_from: float = 0.6
    holdout_every: int = 20
    checkpoint_every: int = 500
    margin_weight: float = 1.0
    value_weight: float = 0.25
    student_share: float = 0.0  # the shipped student's priors and value mixed into the targets
    teacher_share: float = 0.0  # the shipped default teacher's, likewise
    search_value_share: float = 0.0  # the search's value mixed into the result, where recorded
    weight_decay: float = 0.01  # AdamW's, decoupled
    seed: int = 0
    warm_start: Path | None = None  # an nnue-1 weights file to start from (its dense layer may be narrower)
    threads: int = 0  # torch threads (0: torch's default)
    symmetries: bool = False  # each sample seen under a random one of the board's 12 symmetries
    quantization: str = DEFAULT_QUANTIZATION  # the integer scheme of nnue.twnet (nnue_file.SCHEMES)
    extra: dict = field(default_factory=dict)


@dataclass
class Data:
    rows: np.ndarray  # int16 [N, 4 * cells]
    policy: np.ndarray  # float32 [N, cells]
    value: np.ndarray  # float32 [N], -1 / 0 / 1 for the side to move
    score: np.ndarray  # float32 [N], final margin / cells
    legal: np.ndarray  # bool [N, cells]
    # soft targets by network ("student", "teacher"): (priors float32 [N, cells], value [N])
    soft: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    # the search's value for the side to move, float32 [N], NaN where the shard has none;
    # None when not loaded
    search_value: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.value)


def shard_files(folders: list[Path]) -> list[Path]:
    files = []
    for folder in folders:
        if not Path(folder).is_dir():
            raise NnueTrainError(f"no data folder {folder}")
        files += sorted(p for p in Path(folder).iterdir() if SHARD_PATTERN.match(p.name))
    if not files:
        raise NnueTrainError(f"no self-play shards in {', '.join(map(str, folders))}")
    return files


def shard_data(path: Path, cache: Path) -> dict[str, np.ndarray] | None:
    """A shard's inputs and targets, from the cache or computed (and cached); None if damaged."""
    cached = cache / f"{path.parent.name}-{path.stem}.npz"
    if cached.is_file():
        with np.load(cached) as z:
            part = {k: z[k] for k in z.files}
        if "search_value" in part:
            return part
        # cached before the search's value was: read it from the shard and cache it too
        part["search_value"] = search_values(path, len(part["value"]))
    else:
        samples = read_shard(path, 6)
        if samples is None:
            return None
        cells = samples.owner.shape[1]
        part = {
            "rows": samples_rows(samples.owner, samples.height, samples.to_move, samples.passes),
            "policy": samples.policy[:, :cells].astype(np.float32),
            "value": samples.value.astype(np.float32),
            "score": samples.score.astype(np.float32),
            "search_value": search_values(path, len(samples)),
        }
    buffer = io.BytesIO()
    np.savez(buffer, **part)
    write_atomic(cached, buffer.getvalue())
    return part


def search_values(path: Path, count: int) -> np.ndarray:
    """The shard's ``search_value`` array (float32, for the side to move) or NaN for each of its
    ``count`` positions when it has none (shards written before it was recorded); a value
    array of another length or outside [-1, 1] is refused in one line."""
    with np.load(path) as z:
        if "search_value" not in z.files:
            return np.full(count, np.nan, dtype=np.float32)
        values = z["search_value"].astype(np.float32)
    if values.shape != (count,) or not np.all(np.abs(values) <= 1.0):
        raise NnueTrainError(f"{path}: search_value is not {count} values in [-1, 1]")
    return values


def soft_labels(path: Path, cache: Path, net: str) -> dict[str, np.ndarray]:
    """A network's priors over the cells and value on a shard's positions (cached beside its
    inputs): ``net`` "student" (the shipped student, the Python bot's evaluator) or "teacher"
    (the shipped default teacher, batched)."""
    cached = cache / f"{path.parent.name}-{path.stem}-{net}.npz"
    if cached.is_file():
        with np.load(cached) as z:
            return {k: z[k] for k in z.files}
    samples = read_shard(path, 6)
    cells = samples.owner.shape[1]
    if net == "teacher":
        priors, value = teacher_targets(_soft_net("teacher"), Rules(6), samples)
        policy = np.ascontiguousarray(priors[:, :cells], dtype=np.float32)
    else:
        student, board = _soft_net("student"), Board(6)
        policy = np.zeros((len(samples), cells), dtype=np.float32)
        value = np.zeros(len(samples), dtype=np.float32)
        for k in range(len(samples)):
            pos = position_of(
                board, samples.owner[k], samples.height[k], samples.to_move[k], samples.passes[k]
            )
            moves, value[k] = student.evaluate(pos)
            for move, prior in moves.items():
                if move < cells:
                    policy[k, move] = prior
    part = {f"{net}_policy": policy, f"{net}_value": value.astype(np.float32)}
    buffer = io.BytesIO()
    np.savez(buffer, **part)
    write_atomic(cached, buffer.getvalue())
    return part


_LOADED_NETS: dict = {}


def soft_shares(config: TrainConfig) -> dict[str, float]:
    """{network: its share of the targets}."""
    return {"student": config.student_share, "teacher": config.teacher_share}


def _soft_net(net: str):
    """The student's evaluator or the teacher's torch network, loaded once."""
    if net not in _LOADED_NETS:
        if net == "teacher":
            teacher, _ = load_net(DEFAULT_TEACHER, 6, user="the native network's training")
            _LOADED_NETS[net] = teacher.eval()
        else:
            _LOADED_NETS[net] = make_evaluator(default_weights(6))
    return _LOADED_NETS[net]


def load_data(
    files: list[Path],
    cache: Path,
    progress: bool = True,
    soft: tuple[str, ...] = (),
    search_value: bool = False,
) -> Data:
    """The shards' inputs and targets (and the ``soft`` networks' outputs, and the search's
    values when ``search_value``), cached under ``cache``."""
    cache.mkdir(parents=True, exist_ok=True)
    parts = []
    iterator = files
    if progress:
        from tqdm import tqdm

        iterator = tqdm(files, desc="inputs", unit="shard", leave=False)
    for path in iterator:
        part = shard_data(path, cache)
        if part is not None and len(part["value"]):
            for net in soft:
                part.update(soft_labels(path, cache, net))
            parts.append(part)
    if not parts:
        raise NnueTrainError("the shards hold no positions")
    cat = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return Data(
        cat["rows"],
        cat["policy"],
        cat["value"],
        cat["score"],
        my_legal_mask(cat["rows"]),
        {net: (cat[f"{net}_policy"], cat[f"{net}_value"]) for net in soft},
        cat["search_value"] if search_value else None,
    )


def split(files: list[Path], every: int) -> tuple[list[Path], list[Path]]:
    """(training shards, holdout shards): every ``every``-th game held out."""
    hold = [f for k, f in enumerate(files) if every > 0 and k % every == every - 1]
    held = set(hold)
    return [f for f in files if f not in held], hold


def symmetric_batch(data: Data, index: np.ndarray, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The samples ``index``, each under a random one of the 6-board's 12 symmetries.

    Every input is a property of one cell that the symmetries keep (its content, both sights,
    who may place, the simulated territory), so the position's image under a symmetry that
    sends cell c to cell s(c) has cell c's four rows moved to s(c): row c * 47 + code becomes
    s(c) * 47 + code, in s(c)'s slots. The policy and the legal cells move the same way; the
    value and the margin do not change (``tests/native/test_nnue_train.py`` checks this against the
    inputs computed on the transformed positions)."""
    cells = data.policy.shape[1]
    gather = random_symmetries(hexgrid(6), len(index), rng)  # [B, cells]: new[i] = old[gather[i]]
    rows = data.rows[index].astype(np.int64).reshape(len(index), cells, -1)
    rows = np.take_along_axis(rows, gather[:, :, None], axis=1)
    rows += ((np.arange(cells) - gather) * PER_CELL)[:, :, None]
    batch = {
        "rows": rows.reshape(len(index), -1),
        "policy": np.take_along_axis(data.policy[index], gather, axis=1),
        "legal": np.take_along_axis(data.legal[index], gather, axis=1),
    }
    for net, (priors, _) in data.soft.items():
        batch[f"{net}_policy"] = np.take_along_axis(priors[index], gather, axis=1)
    return batch


def losses(
    net: NnueNet,
    data: Data,
    index: np.ndarray,
    quantized: bool,
    config: TrainConfig,
    rng: np.random.Generator | None = None,
):
    """The training loss and its parts on samples ``index`` (under random symmetries when
    ``rng`` is given)."""
    if rng is not None:
        batch = symmetric_batch(data, index, rng)
    else:
        batch = {
            "rows": data.rows[index].astype(np.int64),
            "policy": data.policy[index],
            "legal": data.legal[index],
        }
        for source, (priors, _) in data.soft.items():
            batch[f"{source}_policy"] = priors[index]
    rows = torch.from_numpy(batch["rows"])
    out = net(rows, quantized)
    legal = torch.from_numpy(batch["legal"])
    logits = out["logits"].masked_fill(~legal, -1e9)
    target = torch.from_numpy(batch["policy"])
    value_target = torch.from_numpy(self_play_value(data, index, config.search_value_share))
    shares = soft_shares(config)
    if data.soft:  # (1 - the shares) self-play + each network's share of its outputs
        rest = 1.0 - sum(shares[source] for source in data.soft)
        target, value_target = rest * target, rest * value_target
        for source, (_, soft_value) in data.soft.items():
            target = target + shares[source] * torch.from_numpy(batch[f"{source}_policy"])
            value_target = value_target + shares[source] * (torch.from_numpy(soft_value[index]) + 1.0) * 0.5
    policy = -(target * F.log_softmax(logits, dim=1)).sum(1).mean()
    value = F.binary_cross_entropy_with_logits(out["value_logit"], value_target)
    margin = F.mse_loss(out["margin_share"], torch.from_numpy(data.score[index]))
    total = policy + config.value_weight * value + config.margin_weight * margin
    return total, {"policy": policy.item(), "value": value.item(), "margin": margin.item()}


def self_play_value(data: Data, index: np.ndarray, share: float) -> np.ndarray:
    """The self-play's win-probability targets of samples ``index``: (result + 1) / 2, mixed
    with ``share`` of (search value + 1) / 2 where the data holds the search's value."""
    result = (data.value[index] + 1.0) * 0.5
    if data.search_value is None or share == 0.0:
        return result.astype(np.float32)
    searched = data.search_value[index]
    mixed = (1.0 - share) * result + share * (searched + 1.0) * 0.5
    return np.where(np.isnan(searched), result, mixed).astype(np.float32)


def evaluate(net: NnueNet, data: Data, quantized: bool, config: TrainConfig) -> dict[str, float]:
    """Holdout losses, the policy's top-1 agreement with the most visited move, and the margin's
    mean absolute error in cells."""
    sums = {"policy": 0.0, "value": 0.0, "margin": 0.0, "top1": 0.0, "margin_cells": 0.0}
    cells = data.policy.shape[1]
    with torch.no_grad():
        for start in range(0, len(data), 4096):
            index = np.arange(start, min(len(data), start + 4096))
            _, parts = losses(net, data, index, quantized, config)
            out = net(torch.from_numpy(data.rows[index].astype(np.int64)), quantized)
            logits = out["logits"].masked_fill(~torch.from_numpy(data.legal[index]), -1e9)
            top = (logits.argmax(1).numpy() == data.policy[index].argmax(1)).sum()
            err = np.abs(out["margin_share"].numpy() - data.score[index]).sum() * cells
            for k, v in parts.items():
                sums[k] += v * len(index)
            sums["top1"] += float(top)
            sums["margin_cells"] += float(err)
    return {k: v / len(data) for k, v in sums.items()}


def _save_checkpoint(path: Path, net: NnueNet, opt, step: int, seconds: float, config: TrainConfig) -> None:
    buffer = io.BytesIO()
    torch.save(
        {
            "net": net.state_dict(),
            "opt": opt.state_dict(),
            "step": step,
            "seconds": seconds,
            "shape": [net.width, net.hidden],
            "steps": config.steps,
        },
        buffer,
    )
    write_atomic(path, buffer.getvalue())


def train(config: TrainConfig, progress: bool = True) -> dict:
    """Run (or resume) a training; the summary (also written to OUT/summary.json)."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    if config.threads:
        torch.set_num_threads(config.threads)
    files = shard_files(config.data)
    train_files, hold_files = split(files, config.holdout_every)
    if config.quantization not in SCHEMES:
        raise NnueTrainError(f"quantization must be one of {', '.join(SCHEMES)}, not {config.quantization!r}")
    t0 = time.process_time()
    shares = soft_shares(config)
    if sum(shares.values()) > 1.0:
        raise NnueTrainError("the student's and the teacher's shares add up to more than 1")
    if not 0.0 <= config.search_value_share <= 1.0:
        raise NnueTrainError(f"the search value's share must be in [0, 1], not {config.search_value_share}")
    soft = tuple(source for source, share in shares.items() if share > 0)
    searched = config.search_value_share > 0
    data = load_data(train_files, out / "features", progress, soft, searched)
    if searched and np.isnan(data.search_value).all():
        raise NnueTrainError(
            "--search-value-share: no shard holds the search's value (the native self-play's "
            "search_value array; shards written before it was recorded hold the result alone)"
        )
    hold = load_data(hold_files, out / "features", progress) if hold_files else None
    input_seconds = time.process_time() - t0
    net = NnueNet(config.width, config.hidden, seed=config.seed, scheme=config.quantization)
    if config.warm_start is not None:
        warm = load_weights(config.warm_start, scheme=config.quantization)
        if warm.width != config.width or warm.hidden > config.hidden:
            raise NnueTrainError(
                f"the warm start {config.warm_start} is width {warm.width}, hidden {warm.hidden}, "
                f"not {config.width} and at most {config.hidden}"
            )
        if warm.hidden < config.hidden:  # a wider dense layer: the same function to start
            warm = widened(warm, config.hidden, config.seed)
        net.load_state_dict(warm.state_dict())
    opt = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    checkpoint = out / "checkpoint.pt"
    step, seconds = 0, 0.0
    if checkpoint.is_file():
        state = torch.load(checkpoint, weights_only=True)
        if state["shape"] != [config.width, config.hidden]:
            raise NnueTrainError(
                f"{checkpoint} holds a width/hidden {state['shape']} network; use another --out"
            )
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        step, seconds = int(state["step"]), float(state["seconds"])
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    writer = SummaryWriter(str(out / "tb"))
    qat_step = int(config.qat_from * config.steps)
    bar = tqdm(total=config.steps, initial=step, desc="nnue", unit="step", disable=not progress)
    schedule = lambda s: config.lr * (0.1 ** (s / max(1, config.steps)))  # noqa: E731
    while step < config.steps:
        began = time.process_time()
        for group in opt.param_groups:
            group["lr"] = schedule(step)
        rng = np.random.default_rng([config.seed, step])
        index = rng.integers(0, len(data), config.batch)
        loss, parts = losses(net, data, index, step >= qat_step, config, rng if config.symmetries else None)
        opt.zero_grad()
        loss.backward()
        opt.step()
        net.clip_()
        step += 1
        seconds += time.process_time() - began
        bar.update(1)
        if step % 50 == 0:
            for k, v in parts.items():
                writer.add_scalar(f"train/{k}", v, step)
            writer.add_scalar("train/lr", schedule(step), step)
            bar.set_postfix(policy=f"{parts['policy']:.3f}", value=f"{parts['value']:.3f}")
        if step % config.checkpoint_every == 0 or step == config.steps:
            if hold is not None:
                for k, v in evaluate(net, hold, step >= qat_step, config).items():
                    writer.add_scalar(f"holdout/{k}", v, step)
            _save_checkpoint(checkpoint, net, opt, step, seconds, config)
    bar.close()
    writer.close()
    summary = {
        "positions": len(data),
        "holdout_positions": len(hold) if hold is not None else 0,
        "shards": len(train_files),
        "positions_with_search_value": int((~np.isnan(data.search_value)).sum()) if searched else 0,
        "steps": config.steps,
        "batch": config.batch,
        "cpu_seconds_training": round(seconds, 1),
        "cpu_seconds_inputs": round(input_seconds, 1),
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(config).items() if k != "data"},
        "data": [str(d) for d in config.data],
    }
    if hold is not None:
        summary["holdout_float"] = evaluate(net, hold, False, config)
        summary[f"holdout_{config.quantization}"] = evaluate(net, hold, True, config)
    meta = {"positions": len(data), "steps": config.steps, "data": summary["data"]}
    summary[f"bytes_{config.quantization}"] = write_weights(
        net, out / "nnue.twnet", config.quantization, meta
    )
    summary["bytes_float32"] = write_weights(net, out / "nnue-float.twnet", "float32", meta)
    write_atomic(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    return summary
