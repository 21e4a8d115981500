"""The student's weights file: write a torch student as one for the CodeCup bot, read one back.

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
from tw_rl.core.rules import Rules
from tw_rl.core.state import State
from tw_rl.export.student import StudentNet, masked_softmax, torch_outputs
from tw_rl.files import same_bytes, write_atomic

DEFAULT_QUANTIZATION = "float16"


# file tensor name -> the student's parameter holding it (the same numbers, maybe another shape)
PARAMETERS = {
    "self_table": "self_table",
    "self_bias": "self_bias",
    "msg_table": "msg_table",
    "edge": "edge",
    "policy_w": "policy.weight",
    "policy_b": "policy.bias",
    "hidden_w": "hidden.weight",
    "hidden_g": "hidden_g.weight",
    "hidden_b": "hidden.bias",
    "value_w": "value.weight",
    "value_b": "value.bias",
    "pass_w": "pass_head.weight",
    "pass_b": "pass_head.bias",
}


def student_tensors(net: StudentNet) -> dict[str, np.ndarray]:
    """{file tensor name: float32 array} of a student, in the file's order."""
    out = {}
    for name, shape in tensor_shapes(net.width, net.hidden_units, net.mixing).items():
        tensor = net.get_parameter(PARAMETERS[name]).detach().cpu().to(torch.float32)
        out[name] = np.ascontiguousarray(tensor.numpy().reshape(shape))
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
    """Write the weights file atomically, read back (its bytes and what the bot's reader makes
    of them) before it takes its name; returns its size in bytes."""
    data = weights_bytes(net, quantization, meta)
    Path(path).parent.mkdir(parents=True, exist_ok=True)

    def read_back(written: Path) -> None:
        same_bytes(data)(written)
        fmt.read_weights(str(written), net.size)  # WeightsError (one line) if the bot could not

    write_atomic(Path(path), data, read_back)
    return len(data)


def student_from_weights(weights: fmt.Weights) -> StudentNet:
    """A torch student holding a file's (dequantized) weights."""
    h = weights.header
    net = StudentNet(weights.board_size, int(h["width"]), int(h["hidden"]), h["mixing"])
    with torch.no_grad():
        for name, path in PARAMETERS.items():
            parameter = net.get_parameter(path)
            _, values = weights.tensors[name]
            parameter.copy_(torch.tensor(values, dtype=torch.float32).reshape(parameter.shape))
    return net.eval()


def load_student(path: Path, board_size: int | None = None) -> StudentNet:
    """The torch student of a weights file (WeightsError when it cannot be used)."""
    return student_from_weights(fmt.read_weights(str(path), board_size))


# ------------------------------------------------------------------------------ cost


def quantization_error(net: StudentNet, rules: Rules, state: State, quantization: str) -> dict[str, float]:
    """Largest |value| and |legal-move policy| differences, float32 student vs the file's weights."""
    other = student_from_weights(fmt.parse_weights(weights_bytes(net, quantization)))
    logits_a, value_a, legal = torch_outputs(net, rules, state)
    logits_b, value_b, _ = torch_outputs(other, rules, state)
    pa = masked_softmax(logits_a, legal)
    pb = masked_softmax(logits_b, legal)
    return {
        "value": float(np.abs(value_a - value_b).max()),
        "policy": float(np.abs(pa - pb).max()),
        "logit": float(np.abs(np.where(legal, logits_a - logits_b, 0.0)).max()),
    }
