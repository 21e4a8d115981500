"""The torch twin of the native network (arch ``nnue-1``, ``tw_rl/native/src/nnue_network.hpp``)
and its weights file.

``NnueNet`` holds float weights and the integer ``Scheme`` it is trained for
(``nnue_file.SCHEMES``: "int8" or "int16").  ``forward(rows, quantized=True)`` computes what the
C++ integer network computes, exactly: the weights rounded to their scheme's grids, the sums
rounded to the activations' grid (halves up), the activations clipped to 0..127/64; every
intermediate is a multiple of a power of two small enough that float32 holds it exactly, so
the C++ integers and this agree but for the last rounding of the outputs.  The rounding passes
the gradient straight through (quantization-aware training); ``quantized=False`` is the float
network, which the C++ plays from a 'float32' file.

``weights_bytes`` / ``write_weights`` write the file (int8, int16 or float32, see
``tw_rl.native.nnue_file``); ``load_weights`` reads one back into a twin.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from tw_rl.codecup import weights as fmt
from tw_rl.files import same_bytes, write_atomic
from tw_rl.native import nnue_file
from tw_rl.native.nnue_file import DEFAULT_QUANTIZATION, PER_CELL, SCHEMES, TOP, WEIGHT_MATRICES, Scheme

PARTS = frozenset({"first", "dense", "activations"})  # what an integer network rounds: the first
# layer's weights and bias, the dense layers' (and the policy's) weights and biases, the activations


def _round_ste(x: torch.Tensor) -> torch.Tensor:
    return x + (torch.round(x) - x).detach()


def _floor_ste(x: torch.Tensor) -> torch.Tensor:
    return x + (torch.floor(x) - x).detach()


class NnueNet(nn.Module):
    """The native network's weights as torch parameters (names as in the file)."""

    def __init__(
        self,
        width: int = 128,
        hidden: int = 32,
        size: int = 6,
        seed: int = 0,
        scheme: str = DEFAULT_QUANTIZATION,
    ):
        super().__init__()
        self.width, self.hidden, self.size = width, hidden, size
        self.scheme: Scheme = SCHEMES[scheme]
        self.cells = nnue_file.cells_of(size)
        self.inputs = self.cells * PER_CELL
        g = torch.Generator().manual_seed(seed)
        self.ft_w = nn.Parameter(torch.randn(self.inputs, width, generator=g) * 0.05)
        self.ft_b = nn.Parameter(torch.full((width,), 0.25))
        self.l2_w = nn.Parameter(torch.randn(hidden, width, generator=g) * (1.0 / width) ** 0.5)
        self.l2_b = nn.Parameter(torch.zeros(hidden))
        self.out_w = nn.Parameter(torch.randn(2, hidden, generator=g) * (1.0 / hidden) ** 0.5)
        self.out_b = nn.Parameter(torch.zeros(2))
        self.pol_w = nn.Parameter(torch.zeros(self.cells, width))
        self.pol_b = nn.Parameter(torch.zeros(self.cells))
        self.pol_cell = nn.Parameter(torch.zeros(self.inputs))

    def tensor(self, name: str, quantized: bool, scheme: Scheme | None = None) -> torch.Tensor:
        """A parameter as the network uses it: on its integer grid (``scheme``'s, by default the
        net's own) when ``quantized``."""
        w = getattr(self, name)
        if not quantized:
            return w
        one, top = (scheme or self.scheme).grid[name]
        return torch.clamp(_round_ste(w * one), -top, top) / one

    def clip_(self) -> None:
        """Keep the float weights inside the ranges of their scheme's integer grids."""
        with torch.no_grad():
            for name, (one, top) in self.scheme.grid.items():
                getattr(self, name).clamp_(-top / one, top / one)

    def forward(self, rows: torch.Tensor, quantized: bool | frozenset = True) -> dict[str, torch.Tensor]:
        """rows: int64 [B, 4 * cells] (``nnue_features``).  value_logit [B], margin_share [B]
        (the margin / cells), logits [B, cells].  ``quantized``: True (the integer network of the
        net's scheme), False (the float one), or a set of ``PARTS`` rounded alone (what each
        rounding costs)."""
        one = self.scheme.one
        parts = PARTS if quantized is True else frozenset(quantized or ())
        first, dense, act = "first" in parts, "dense" in parts, "activations" in parts
        acc = F.embedding_bag(rows, self.tensor("ft_w", first), mode="sum") + self.tensor("ft_b", first)
        if act:
            acc = _floor_ste(acc * one + 0.5) / one  # to the activations' grid, halves up, as the C++
        a1 = torch.clamp(acc, 0.0, TOP)
        z = a1 @ self.tensor("l2_w", dense).t() + self.tensor("l2_b", dense)
        if act:
            z = _floor_ste(z * one + 0.5) / one  # to the nearest, halves up, as the C++
        a2 = torch.clamp(z, 0.0, TOP)
        out = a2 @ self.tensor("out_w", dense).t() + self.tensor("out_b", dense)
        local = self.tensor("pol_cell", dense)[rows].view(rows.shape[0], self.cells, -1).sum(-1)
        logits = a1 @ self.tensor("pol_w", dense).t() + self.tensor("pol_b", dense) + local
        return {"value_logit": out[:, 0], "margin_share": out[:, 1], "logits": logits}


def arrays(net: NnueNet, quantization: str) -> dict[str, np.ndarray]:
    """{file tensor: float64 array} in the file's order (int8, int16: on that scheme's grids)."""
    shapes = nnue_file.tensor_shapes(net.width, net.hidden, net.cells)
    scheme = SCHEMES.get(quantization)
    out = {}
    for name, shape in shapes.items():
        with torch.no_grad():
            t = net.tensor(name, scheme is not None, scheme).detach().to(torch.float64)
        out[name] = t.cpu().numpy().reshape(shape)
    return out


def zigzag_bytes(q: np.ndarray) -> bytes:
    """Integers (|q| at most 32767) as the weights file's z16 run: zigzag, 7 bits a byte, low
    group first, the top bit on every byte of a value but its last."""
    z = np.where(q >= 0, 2 * q, -2 * q - 1).astype(np.uint32).reshape(-1)
    length = 1 + (z >= 1 << 7).astype(np.int64) + (z >= 1 << 14).astype(np.int64)
    groups = np.stack([z & 127, (z >> 7) & 127, z >> 14], axis=1).astype(np.uint8)
    groups[:, 0] |= np.where(length > 1, 128, 0).astype(np.uint8)
    groups[:, 1] |= np.where(length > 2, 128, 0).astype(np.uint8)
    return groups[np.arange(3)[None, :] < length[:, None]].tobytes()


def weights_bytes(net: NnueNet, quantization: str = DEFAULT_QUANTIZATION, meta: dict | None = None) -> bytes:
    """The network's weights file as bytes."""
    if quantization not in nnue_file.QUANTIZATIONS:
        raise ValueError(f"quantization must be one of {nnue_file.QUANTIZATIONS}, got {quantization!r}")
    scheme = SCHEMES.get(quantization)
    specs, chunks = [], []
    for name, array in arrays(net, quantization).items():
        flat = array.reshape(-1)
        spec = {"name": name, "shape": list(array.shape), "dtype": "f32"}
        if scheme is not None and name in WEIGHT_MATRICES:
            rows = array.shape[0]
            one = scheme.grid[name][0]
            scales = np.full(rows, 1.0 / one, dtype="<f4").tobytes()
            q = np.rint(flat * one).astype(np.int64)
            if scheme.dtype == "i8":
                chunks.append(scales + q.astype(np.int8).tobytes())
            else:
                chunks.append(scales + zigzag_bytes(q))
                spec["bytes"] = len(chunks[-1])
            spec["dtype"] = scheme.dtype
        else:
            chunks.append(flat.astype("<f4").tobytes())
        specs.append(spec)
    header = {
        "arch": nnue_file.ARCH,
        "width": net.width,
        "hidden": net.hidden,
        "features": PER_CELL,
        "feature_groups": [list(g) for g in nnue_file.GROUPS],
        "quantization": quantization,
        "tensors": specs,
        "meta": meta or {},
    }
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("utf-8")
    data = b"".join(chunks)
    body = fmt.PREFIX.pack(fmt.MAGIC, fmt.FORMAT_VERSION, net.size, len(head), len(data)) + head + data
    return body + hashlib.sha256(body).digest()


def write_weights(
    net: NnueNet, path: Path, quantization: str = DEFAULT_QUANTIZATION, meta: dict | None = None
) -> int:
    """Write the file atomically, checked as the native bot's builder checks it; its size."""
    data = weights_bytes(net, quantization, meta)
    Path(path).parent.mkdir(parents=True, exist_ok=True)

    def read_back(written: Path) -> None:
        same_bytes(data)(written)
        nnue_file.check(fmt.read_weights(str(written), net.size))

    write_atomic(Path(path), data, read_back)
    return len(data)


def load_weights(path: Path, scheme: str | None = None) -> NnueNet:
    """A twin holding a weights file's network (WeightsError, one line, if it is not one).
    ``scheme``: the integer scheme it plays in (default: an integer file's own, else
    ``DEFAULT_QUANTIZATION``)."""
    w = fmt.read_weights(str(path))
    nnue_file.check(w)
    quantization = w.header["quantization"]
    if scheme is None:
        scheme = quantization if quantization in SCHEMES else DEFAULT_QUANTIZATION
    net = NnueNet(w.header["width"], w.header["hidden"], w.board_size, scheme=scheme)
    with torch.no_grad():
        for name in nnue_file.tensor_shapes(net.width, net.hidden, net.cells):
            shape, values = w.tensor(name)
            getattr(net, name).copy_(torch.tensor(values, dtype=torch.float32).view(*shape))
    return net


def widened(net: NnueNet, hidden: int, seed: int = 0) -> NnueNet:
    """``net`` with a dense layer of ``hidden`` >= its own lanes, computing the same float
    outputs: the new lanes get random incoming weights (so that they are active and learn) and
    zero outgoing weights (so that they add nothing until trained)."""
    if hidden < net.hidden:
        raise ValueError(f"cannot narrow a dense layer of {net.hidden} lanes to {hidden}")
    wide = NnueNet(net.width, hidden, net.size, seed=seed, scheme=net.scheme.name)
    with torch.no_grad():
        for name in ("ft_w", "ft_b", "out_b", "pol_w", "pol_b", "pol_cell"):
            getattr(wide, name).copy_(getattr(net, name))
        wide.l2_w[: net.hidden] = net.l2_w
        wide.l2_b.zero_()
        wide.l2_b[: net.hidden] = net.l2_b
        wide.out_w.zero_()
        wide.out_w[:, : net.hidden] = net.out_w
    return wide


def value_of(value_logit: torch.Tensor) -> torch.Tensor:
    """The search's value for the side to move: 2 sigmoid - 1 = tanh(logit / 2)."""
    return torch.tanh(0.5 * value_logit)
