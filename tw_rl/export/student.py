"""The student network: the small net the CodeCup bot runs, as a torch module, and its inputs.

The student is the network the CodeCup bot runs in pure Python (``tw_rl.codecup.network``,
which documents the shape and why; this module is its torch twin).  Inputs are three integer
codes per cell (owner x height, my x their sight, legality x territory) plus two global flags,
all from the scalar rules' cheap facts; the embedding is a sum of table rows, one
neighbourhood step (neighbour messages summed, / 6), a ReLU, then a policy logit per cell and,
from the mean over cells through one hidden layer, the pass logit and a tanh value.  The
inputs are symmetric per cell: the codes of a permuted position are the permuted codes.

Defaults: width 32, hidden 32, "mean" mixing: the widths and mixings measured for them (their
pure-Python cost and holdout fit) are on ``docs/results/standings.md``, "Design choices of the
bot".

Training is ``tw_rl.export.distill``; the weights file is ``tw_rl.export.weights_file``.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from tw_rl.codecup.network import MAX_HEIGHT, MIXINGS, NUM_GLOBALS, OFFSETS, ROWS
from tw_rl.config import StudentConfig
from tw_rl.core.hexgrid import hexgrid
from tw_rl.core.rules import Rules
from tw_rl.core.state import EMPTY, NEUTRAL, RED, State


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
    """A fresh (untrained) student of a config."""
    return StudentNet(size, cfg.width, cfg.hidden, cfg.mixing)


@torch.no_grad()
def torch_outputs(net: StudentNet, rules: Rules, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(logits [B, N+1], value [B], legal [B, N+1]) of the torch student on a batched state."""
    codes, glob = student_inputs(rules, state)
    out = net.eval()(torch.from_numpy(codes), torch.from_numpy(glob))
    return out["policy"].numpy(), out["value"].numpy(), rules.legal_mask(state)


def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """[B, A] probabilities of the legal actions (float64; 0 on illegal ones)."""
    x = np.where(legal, logits.astype(np.float64), -np.inf)
    x = x - x.max(axis=1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=1, keepdims=True)
