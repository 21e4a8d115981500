"""The torch network and its adaptor into a policy-value function for the search.

Input: the planes of ``tw_rl.core.encode`` on the (2n-1) x (2n-1) axial grid. Hexagonal
convolutions are 3x3 convolutions whose two non-neighbour corners ((+1, -1) and (-1, +1) in
(col, row)) are masked to zero, and every layer's output is multiplied by the on-board mask so
nothing leaks through off-board squares. Residual blocks, some with global pooling (mean and
max over the board feed channel biases, as in KataGo). Heads:

- policy: a logit per cell (1x1 convolution) and one for the pass (from pooled features);
- value: win / draw / loss logits for the side to act;
- territory: per cell in [-1, 1], +1 = ends in my simulated territory, -1 = in theirs;
- score: the final territory margin / N for the side to act.
"""

from __future__ import annotations

import copy

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from tw_rl.config import NetConfig
from tw_rl.core.encode import encode, num_planes
from tw_rl.core.hexgrid import hexgrid
from tw_rl.core.rules import Rules
from tw_rl.core.state import State
from tw_rl.training.inference import Forward, build_forward, check_backend


class HexConv(nn.Conv2d):
    """A 3x3 convolution over the six hexagonal neighbours and the cell itself."""

    def __init__(self, in_channels: int, out_channels: int, bias: bool = False):
        super().__init__(in_channels, out_channels, 3, padding=1, bias=bias)
        mask = torch.ones(1, 1, 3, 3)
        mask[..., 2, 0] = 0  # offset (+1, -1)
        mask[..., 0, 2] = 0  # offset (-1, +1)
        self.register_buffer("hex_mask", mask, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(x, self.weight * self.hex_mask, self.bias, padding=1)


class PooledBias(nn.Module):
    """Global mean and max over the board, turned into per-channel biases."""

    def __init__(self, channels: int, pooled: int):
        super().__init__()
        self.reduce = nn.Conv2d(channels, pooled, 1)
        self.expand = nn.Linear(2 * pooled, channels)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, count: torch.Tensor) -> torch.Tensor:
        pooled = _pool(F.relu(self.reduce(x)), mask, count)
        return x + self.expand(pooled)[:, :, None, None]


class ResBlock(nn.Module):
    """Two hexagonal convolutions with batch norm and a skip connection, optionally pooled biases."""

    def __init__(self, channels: int, pooled: int, with_pool: bool):
        super().__init__()
        self.conv1 = HexConv(channels, channels)
        self.norm1 = nn.BatchNorm2d(channels)
        self.conv2 = HexConv(channels, channels)
        self.norm2 = nn.BatchNorm2d(channels)
        self.pool = PooledBias(channels, pooled) if with_pool else None

    def forward(self, x: torch.Tensor, mask: torch.Tensor, count: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.norm1(self.conv1(x))) * mask
        if self.pool is not None:
            y = self.pool(y, mask, count) * mask
        y = self.norm2(self.conv2(y)) * mask
        return F.relu(x + y) * mask


class TumbleweedNet(nn.Module):
    """Residual hex-conv network with policy, value, territory and score heads."""

    def __init__(self, config: NetConfig, size: int, in_planes: int | None = None):
        super().__init__()
        grid = hexgrid(size)
        self.config = config
        self.size = size
        self.num_cells = grid.num_cells
        self.in_planes = in_planes or num_planes()
        c, h = config.channels, config.head_channels
        flat = grid.coords[:, 0] * grid.width + grid.coords[:, 1]
        self.register_buffer("cell_index", torch.as_tensor(flat, dtype=torch.long), persistent=False)
        mask = torch.zeros(1, 1, grid.width * grid.width)
        mask[..., flat] = 1
        self.register_buffer("board_mask", mask.view(1, 1, grid.width, grid.width), persistent=False)
        self.stem = HexConv(self.in_planes, c)
        self.stem_norm = nn.BatchNorm2d(c)
        self.blocks = nn.ModuleList(
            ResBlock(c, h, config.pool_every > 0 and (i + 1) % config.pool_every == 0)
            for i in range(config.blocks)
        )
        self.head = nn.Conv2d(c, h, 1)
        self.head_norm = nn.BatchNorm2d(h)
        self.policy_conv = nn.Conv2d(h, 1, 1)
        self.territory_conv = nn.Conv2d(h, 1, 1)
        self.pass_fc = nn.Linear(2 * h, 1)
        self.value_fc = nn.Sequential(nn.Linear(2 * h, h), nn.ReLU(), nn.Linear(h, 3))
        self.score_fc = nn.Sequential(nn.Linear(2 * h, h), nn.ReLU(), nn.Linear(h, 1))

    def forward(self, planes: torch.Tensor) -> dict[str, torch.Tensor]:
        mask = self.board_mask
        count = mask.sum()
        x = F.relu(self.stem_norm(self.stem(planes))) * mask
        for block in self.blocks:
            x = block(x, mask, count)
        head = F.relu(self.head_norm(self.head(x))) * mask
        pooled = _pool(head, mask, count)
        cells = lambda t: t.flatten(2)[:, 0, self.cell_index]  # noqa: E731
        policy = torch.cat([cells(self.policy_conv(head)), self.pass_fc(pooled)], dim=1)
        return {
            "policy": policy,  # [B, N+1] logits
            "value": self.value_fc(pooled),  # [B, 3] win / draw / loss logits
            "territory": torch.tanh(cells(self.territory_conv(head))),  # [B, N]
            "score": self.score_fc(pooled)[:, 0],  # [B]
        }


def _pool(x: torch.Tensor, mask: torch.Tensor, count: torch.Tensor) -> torch.Tensor:
    mean = (x * mask).sum(dim=(2, 3)) / count
    peak = x.masked_fill(mask == 0, float("-inf")).amax(dim=(2, 3))
    return torch.cat([mean, peak], dim=1)


def build_net(config: NetConfig, size: int) -> TumbleweedNet:
    """A fresh (untrained) network of a config for the size-``size`` board."""
    return TumbleweedNet(config, size)


def resolve_device(name: str) -> torch.device:
    """ "auto" -> cuda when available, else cpu."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {name!r} asked for, but torch sees no CUDA device")
    return torch.device(name)


PRECISIONS = ("float32", "bfloat16", "auto")  # of the search's forward passes


def native_bfloat16(device: torch.device | str) -> bool:
    """True where bfloat16 matrix work runs in hardware: a CUDA GPU that supports it, or a CPU
    with AVX-512 BF16 / AMX that oneDNN uses (elsewhere bfloat16 would be emulated, and slower)."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    return (
        device.type == "cpu"
        and torch.backends.mkldnn.is_available()
        and torch.ops.mkldnn._is_mkldnn_bf16_supported()
    )


def inference_dtype(precision: str, device: torch.device | str) -> torch.dtype:
    """The dtype of the search's forward passes: ``auto`` takes bfloat16 where it is native."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if precision == "bfloat16" or (precision == "auto" and native_bfloat16(device)):
        return torch.bfloat16
    return torch.float32


def weights_version(net: nn.Module) -> int:
    """Changes whenever a parameter or buffer is modified in place (an optimizer step, a load)."""
    return sum(t._version for t in net.state_dict(keep_vars=True).values())


class NetPolicyValue:
    """A ``PolicyValue`` for the search: encode, one batched forward pass, masked softmax.

    With ``precision`` bfloat16 (or ``auto`` on hardware that computes it natively) the passes
    run on a bfloat16, channels-last copy of the network, rebuilt whenever the training
    network's weights change; outputs are turned back to float32 before the softmax. Measured
    by ``scripts/bench_selfplay.py``; tests bound the difference to the float32 outputs.

    ``backend`` (float32 on the CPU only; ``tw_rl.training.inference``): ``eager`` runs the torch
    module; ``compile``, ``onnx`` and ``onnx-int8`` run a compiled or exported form of it, rebuilt
    (the ONNX ones) whenever the weights change.
    """

    def __init__(
        self,
        net: TumbleweedNet,
        rules: Rules,
        device: torch.device | str = "cpu",
        max_batch: int = 1024,
        precision: str = "float32",
        backend: str = "eager",
    ):
        self.net = net
        self.rules = rules
        self.device = torch.device(device)
        self.max_batch = max_batch
        self.dtype = inference_dtype(precision, self.device)
        check_backend(backend, self.dtype, self.device)
        self.backend = backend
        self.evaluations = 0
        self._copy: nn.Module | None = None
        self._copy_version = -1
        self._forward: Forward | None = None
        self._forward_version = -1

    def inference_net(self) -> nn.Module:
        """The module the passes run on: the network itself in float32, else its low-precision copy."""
        if self.dtype == torch.float32:
            return self.net.eval()
        version = weights_version(self.net)
        if self._copy is None or version != self._copy_version:
            net = copy.deepcopy(self.net).eval().to(device=self.device, dtype=self.dtype)
            self._copy = net.to(memory_format=torch.channels_last)
            self._copy_version = version
        return self._copy

    def forward_pass(self, planes: torch.Tensor) -> Forward:
        """The backend's forward pass for the current weights (``eager``: the torch module's)."""
        if self.backend == "eager":
            net = self.inference_net()
            return lambda x: (lambda out: (out["policy"], out["value"]))(net(x))
        version = weights_version(self.net)
        if self._forward is None or (self.backend != "compile" and version != self._forward_version):
            calibration = planes[:512].float() if self.backend == "onnx-int8" else None
            self._forward = build_forward(self.backend, self.net.eval(), calibration)
            self._forward_version = version
        return self._forward

    @torch.no_grad()
    def __call__(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        planes = encode(self.rules, state)
        legal = self.rules.legal_mask(state)
        priors = np.empty(legal.shape, dtype=np.float32)
        values = np.empty(len(planes), dtype=np.float32)
        for start in range(0, len(planes), self.max_batch):
            part = slice(start, start + self.max_batch)
            x = torch.from_numpy(planes[part]).to(self.device, self.dtype)
            if self.dtype != torch.float32:
                x = x.contiguous(memory_format=torch.channels_last)
            policy, value = self.forward_pass(x)(x)
            logits = policy.float()
            logits = logits.masked_fill(~torch.from_numpy(legal[part]).to(self.device), float("-inf"))
            p = torch.softmax(logits, dim=1)
            p = torch.nan_to_num(p, nan=0.0)
            wdl = torch.softmax(value.float(), dim=1)
            priors[part] = p.cpu().numpy()
            values[part] = (wdl[:, 0] - wdl[:, 2]).cpu().numpy()
        self.evaluations += len(planes)
        return priors, values
