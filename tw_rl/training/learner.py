"""The learner: batches from the replay window, losses per head, optimizer steps, checkpoints.

Each drawn sample gets one of the 12 board symmetries at random (planes, policy and territory
permuted together). Losses: policy cross-entropy against the search policy, value
cross-entropy over win / draw / loss, territory and score mean squared errors.

Checkpoints hold tensors and plain values only (``torch.load(..., weights_only=True)`` reads
them): the format version, board size, net config, model and optimizer state, generation and
step counters, and the run config as a plain dict. They are written to a temporary name and
renamed; a damaged one is skipped with a warning when looking for the newest.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from tw_rl.config import LearnerConfig, NetConfig
from tw_rl.core.encode import encode
from tw_rl.core.hexgrid import inverse_permutation
from tw_rl.core.rules import Rules
from tw_rl.files import atomic_writer
from tw_rl.training.net import TumbleweedNet
from tw_rl.training.replay_buffer import Samples

CHECKPOINT_FORMAT = 1
CHECKPOINT_PATTERN = re.compile(r"ckpt-g(\d+)\.pt$")


def training_batch(rules: Rules, samples: Samples, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Encoded inputs and targets of samples, each under a random board symmetry."""
    grid = rules.grid
    inverse = np.stack([inverse_permutation(p) for p in grid.symmetries])
    sym = rng.integers(0, 12, size=len(samples))
    gather = inverse[sym]  # new[i] = old[inverse[i]]
    owner = np.take_along_axis(samples.owner, gather, axis=1)
    height = np.take_along_axis(samples.height, gather, axis=1)
    territory = np.take_along_axis(samples.territory, gather, axis=1)
    policy = samples.policy.astype(np.float32)
    policy = np.concatenate([np.take_along_axis(policy[:, :-1], gather, axis=1), policy[:, -1:]], axis=1)
    state = rules.position(owner, height, samples.to_move, samples.passes)
    return {
        "planes": encode(rules, state),
        "legal": rules.legal_mask(state),
        "policy": policy,
        "value": (1 - samples.value).astype(np.int64),  # class 0 win, 1 draw, 2 loss
        "territory": territory.astype(np.float32),
        "score": samples.score.astype(np.float32),
    }


def losses(net: TumbleweedNet, batch: dict[str, torch.Tensor], cfg: LearnerConfig) -> dict[str, torch.Tensor]:
    out = net(batch["planes"])
    logits = out["policy"].masked_fill(~batch["legal"], -1e9)
    policy = -(batch["policy"] * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
    value = F.cross_entropy(out["value"], batch["value"])
    territory = F.mse_loss(out["territory"], batch["territory"])
    score = F.mse_loss(out["score"], batch["score"])
    total = policy + cfg.value_weight * value + cfg.territory_weight * territory + cfg.score_weight * score
    return {"total": total, "policy": policy, "value": value, "territory": territory, "score": score}


class Learner:
    """Owns the network's optimizer and takes gradient steps."""

    def __init__(self, net: TumbleweedNet, rules: Rules, cfg: LearnerConfig, device: torch.device):
        self.net = net
        self.rules = rules
        self.cfg = cfg
        self.device = device
        self.optimizer = torch.optim.AdamW(
            net.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay
        )
        self.step = 0

    def train_step(self, samples: Samples, rng: np.random.Generator) -> dict[str, float]:
        arrays = training_batch(self.rules, samples, rng)
        batch = {k: torch.from_numpy(v).to(self.device) for k, v in arrays.items()}
        self.net.train()
        parts = losses(self.net, batch, self.cfg)
        self.optimizer.zero_grad(set_to_none=True)
        parts["total"].backward()
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), 5.0)
        self.optimizer.step()
        self.step += 1
        return {k: float(v.detach()) for k, v in parts.items()}

    def checkpoint(self, generation: int, run_config: dict) -> dict:
        return {
            "format": CHECKPOINT_FORMAT,
            "size": self.net.size,
            "net": dataclasses.asdict(self.net.config),
            "model": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "generation": generation,
            "step": self.step,
            "config": run_config,
        }

    def restore(self, checkpoint: dict) -> None:
        self.net.load_state_dict(checkpoint["model"])
        self.optimizer.load_state_dict(checkpoint["optimizer"])
        self.step = int(checkpoint["step"])


def save_checkpoint(folder: Path, generation: int, payload: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"ckpt-g{generation:06d}.pt"
    with atomic_writer(path) as handle:
        torch.save(payload, handle)
    return path


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used; the message says why in one line."""


def load_checkpoint(path: Path, map_location: str | torch.device = "cpu") -> dict:
    """Read a checkpoint safely (no pickle), checking its format."""
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except FileNotFoundError:
        raise CheckpointError(f"no checkpoint at {path}") from None
    except Exception as err:  # torch raises several kinds for a damaged file
        raise CheckpointError(f"{path} is not a readable checkpoint ({type(err).__name__}: {err})") from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path} is not a tw_rl checkpoint of format {CHECKPOINT_FORMAT}")
    return payload


def latest_checkpoint(folder: Path) -> tuple[Path, dict] | None:
    """The newest readable checkpoint in a folder; damaged ones are skipped with a warning."""
    paths = sorted(
        (p for p in Path(folder).glob("ckpt-g*.pt") if CHECKPOINT_PATTERN.search(p.name)),
        key=lambda p: int(CHECKPOINT_PATTERN.search(p.name).group(1)),
        reverse=True,
    )
    for path in paths:
        try:
            return path, load_checkpoint(path)
        except CheckpointError as err:
            warnings.warn(f"skipping checkpoint: {err}", stacklevel=2)
    return None


def net_from_checkpoint(payload: dict, device: torch.device | str = "cpu") -> TumbleweedNet:
    """Rebuild the network a checkpoint holds."""
    net = TumbleweedNet(NetConfig(**payload["net"]), int(payload["size"]))
    net.load_state_dict(payload["model"])
    return net.to(device).eval()
