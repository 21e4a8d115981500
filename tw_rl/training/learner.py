"""The learner: batches from the replay window, losses per head, optimizer steps.

Each drawn sample gets one of the 12 board symmetries at random (planes, policy and territory
permuted together, ``tw_rl.core.encode.random_symmetries``). Losses: policy cross-entropy
against the search policy, value cross-entropy over win / draw / loss, territory and score mean
squared errors. Checkpoint files are ``tw_rl.training.checkpoint``'s. A generation's steps add up
in a ``StepTally``, which builds the learner's metrics of the generation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from tw_rl.config import LearnerConfig
from tw_rl.core.encode import encode, gather_actions, gather_cells, random_symmetries
from tw_rl.core.rules import Rules
from tw_rl.training.checkpoint import checkpoint_payload
from tw_rl.training.net import TumbleweedNet
from tw_rl.training.replay_buffer import Samples


def training_batch(rules: Rules, samples: Samples, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Encoded inputs and targets of samples, each under a random board symmetry."""
    gather = random_symmetries(rules.grid, len(samples), rng)
    owner = gather_cells(samples.owner, gather)
    height = gather_cells(samples.height, gather)
    territory = gather_cells(samples.territory, gather)
    policy = gather_actions(samples.policy.astype(np.float32), gather)
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
    """The weighted loss of a batch (``total``) and its part per head."""
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

    def checkpoint(self, generation: int, run_config: dict, metrics: dict | None = None) -> dict:
        """The checkpoint payload of the network and optimizer now (with the generation's metrics)."""
        return checkpoint_payload(self.net, self.optimizer, generation, self.step, run_config, metrics)

    def restore(self, checkpoint: dict) -> None:
        self.net.load_state_dict(checkpoint["model"])
        self.optimizer.load_state_dict(checkpoint["optimizer"])
        self.step = int(checkpoint["step"])


@dataclass
class StepTally:
    """A generation's gradient steps, added up for its metrics."""

    steps: int = 0  # steps taken
    seconds: float = 0.0  # time spent in them, drawing the batches included
    totals: dict[str, float] = field(default_factory=dict)  # each loss part, summed over the steps

    def add(self, parts: dict[str, float], seconds: float) -> None:
        """Count one step: its loss parts (``Learner.train_step``) and its time."""
        self.steps += 1
        self.seconds += seconds
        for key, value in parts.items():
            self.totals[key] = self.totals.get(key, 0.0) + value

    def metrics(self, learner_step: int, replay_samples: int, batch_size: int) -> dict:
        """The learner's metrics of the generation: the mean loss parts (``train/<part>``), the
        replay window's size, the learner's step count, the steps taken and samples trained on per
        second."""
        out = {f"train/{k}": v / max(self.steps, 1) for k, v in self.totals.items()}
        out["train/replay_samples"] = replay_samples
        out["train/step"] = learner_step
        out["train/steps"] = self.steps
        out["perf/train_samples_per_s"] = self.steps * batch_size / max(self.seconds, 1e-9)
        return out
