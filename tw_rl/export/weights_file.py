"""Write a torch student network as a weights file for the CodeCup bot, and read one back.

The format is specified (and read, with the standard library only) in
``tw_rl.codecup.weights``; the pure-Python forward pass is ``tw_rl.codecup.network``.
Two-dimensional tensors are quantized ("int8": symmetric, one float32 scale per row = per
output channel / table row; "float16"), one-dimensional ones (biases, the policy vector)
are kept in float32.

``quantization_error`` measures what the quantization costs: the largest absolute
difference of the value and of the legal-move policy between the float32 student and the
file's (dequantized) weights, on given positions.  On the default student distilled from
``runs/default-60min`` (width 32, 3,273 holdout positions), int8 cost a max |value error| of
0.018 and a max |policy error| of 0.0062; float16 0.00045 and 0.00026, 25-40x less (four
other students, widths 16-48 and both mixings, 64 positions each: int8 0.010-0.018 / 0.002-
0.005, float16 0.0002-0.0005 / 0.0001-0.0002).  The files are 8-46 KB either way (the
CodeCup limit is 1.47 MB), so float16 is the default.
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path

import numpy as np
import torch

from tw_rl.codecup import weights as fmt
from tw_rl.codecup.network import ARCH, tensor_shapes
from tw_rl.codecup.rules import Board, Position
from tw_rl.export.student import StudentNet, student_inputs
from tw_rl.files import write_atomic

DEFAULT_QUANTIZATION = "float16"


def student_tensors(net: StudentNet) -> dict[str, np.ndarray]:
    """{file tensor name: float32 array} of a student, in the file's order."""
    t = {
        "self_table": net.self_table,
        "self_bias": net.self_bias,
        "msg_table": net.msg_table,
        "edge": net.edge,
        "policy_w": net.policy.weight[0],
        "policy_b": net.policy.bias,
        "hidden_w": net.hidden.weight,
        "hidden_g": net.hidden_g.weight,
        "hidden_b": net.hidden.bias,
        "value_w": net.value.weight[0],
        "value_b": net.value.bias,
        "pass_w": net.pass_head.weight[0],
        "pass_b": net.pass_head.bias,
    }
    shapes = tensor_shapes(net.width, net.hidden_units, net.mixing)
    out = {}
    for name, shape in shapes.items():
        array = t[name].detach().cpu().to(torch.float32).numpy().reshape(shape)
        out[name] = np.ascontiguousarray(array)
    return out


def _encode(array: np.ndarray, dtype: str) -> bytes:
    flat = [float(x) for x in array.reshape(-1)]
    if dtype == "f32":
        return struct.pack(f"<{len(flat)}f", *flat)
    if dtype == "f16":
        return struct.pack(f"<{len(flat)}e", *flat)
    rows = array.reshape(array.shape[0], -1).astype(np.float64)
    peak = np.abs(rows).max(axis=1)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    q = np.clip(np.rint(rows / scales[:, None].astype(np.float64)), -127, 127).astype(np.int8)
    return struct.pack(f"<{len(scales)}f", *scales.tolist()) + struct.pack(
        f"<{q.size}b", *q.reshape(-1).tolist()
    )


def weights_bytes(
    net: StudentNet,
    quantization: str = DEFAULT_QUANTIZATION,
    meta: dict | None = None,
    _version: int = fmt.FORMAT_VERSION,
    _magic: bytes = fmt.MAGIC,
) -> bytes:
    """The weights file of a student as bytes (``_version``/``_magic``: for tests only)."""
    if quantization not in fmt.QUANTIZATIONS:
        raise ValueError(f"quantization must be one of {fmt.QUANTIZATIONS}, got {quantization!r}")
    arrays = student_tensors(net)
    two_d = "i8" if quantization == "int8" else "f16"
    specs = []
    chunks = []
    for name, array in arrays.items():
        dtype = two_d if array.ndim == 2 else "f32"
        specs.append({"name": name, "shape": list(array.shape), "dtype": dtype})
        chunks.append(_encode(array, dtype))
    header = {
        "arch": ARCH,
        "width": net.width,
        "hidden": net.hidden_units,
        "mixing": net.mixing,
        "rows": int(net.self_table.shape[0]),
        "quantization": quantization,
        "tensors": specs,
        "meta": meta or {},
    }
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("utf-8")
    data = b"".join(chunks)
    body = fmt.PREFIX.pack(_magic, _version, net.size, len(head), len(data)) + head + data
    return body + hashlib.sha256(body).digest()


def write_weights(
    net: StudentNet, path: Path, quantization: str = DEFAULT_QUANTIZATION, meta: dict | None = None
) -> int:
    """Write the weights file atomically; returns its size in bytes."""
    data = weights_bytes(net, quantization, meta)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(Path(path), data)
    return len(data)


def student_from_weights(weights: fmt.Weights) -> StudentNet:
    """A torch student holding a file's (dequantized) weights."""
    h = weights.header
    net = StudentNet(weights.board_size, int(h["width"]), int(h["hidden"]), h["mixing"])
    values = {
        name: torch.tensor(v, dtype=torch.float32).reshape(s) for name, (s, v) in weights.tensors.items()
    }
    with torch.no_grad():
        net.self_table.copy_(values["self_table"])
        net.self_bias.copy_(values["self_bias"])
        net.msg_table.copy_(values["msg_table"])
        net.edge.copy_(values["edge"])
        net.policy.weight.copy_(values["policy_w"][None])
        net.policy.bias.copy_(values["policy_b"])
        net.hidden.weight.copy_(values["hidden_w"])
        net.hidden_g.weight.copy_(values["hidden_g"])
        net.hidden.bias.copy_(values["hidden_b"])
        net.value.weight.copy_(values["value_w"][None])
        net.value.bias.copy_(values["value_b"])
        net.pass_head.weight.copy_(values["pass_w"][None])
        net.pass_head.bias.copy_(values["pass_b"])
    return net.eval()


def load_student(path: Path, board_size: int | None = None) -> StudentNet:
    """The torch student of a weights file (WeightsError when it cannot be used)."""
    return student_from_weights(fmt.read_weights(str(path), board_size))


# ------------------------------------------------------------------------------ checks


def scalar_position(board: Board, owner, height, to_move: int, passes: int = 0) -> Position:
    """A scalar-engine Position (codecup) from one sample's arrays."""
    pos = Position(board)
    pos.owner = [int(x) for x in owner]
    pos.height = [int(x) for x in height]
    pos.to_move = int(to_move)
    pos.passes = int(passes)
    return pos


@torch.no_grad()
def torch_outputs(net: StudentNet, rules, state) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(logits [B, N+1], value [B], legal [B, N+1]) of the torch student on a batched state."""
    codes, glob = student_inputs(rules, state)
    out = net.eval()(torch.from_numpy(codes), torch.from_numpy(glob))
    return out["policy"].numpy(), out["value"].numpy(), rules.legal_mask(state)


def _masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    x = np.where(legal, logits.astype(np.float64), -np.inf)
    x = x - x.max(axis=1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=1, keepdims=True)


def quantization_error(net: StudentNet, rules, state, quantization: str) -> dict[str, float]:
    """Largest |value| and |legal-move policy| differences, float32 student vs the file's weights."""
    other = student_from_weights(fmt.parse_weights(weights_bytes(net, quantization)))
    logits_a, value_a, legal = torch_outputs(net, rules, state)
    logits_b, value_b, _ = torch_outputs(other, rules, state)
    pa = _masked_softmax(logits_a, legal)
    pb = _masked_softmax(logits_b, legal)
    return {
        "value": float(np.abs(value_a - value_b).max()),
        "policy": float(np.abs(pa - pb).max()),
        "logit": float(np.abs(np.where(legal, logits_a - logits_b, 0.0)).max()),
    }
