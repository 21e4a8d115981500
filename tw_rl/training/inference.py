"""Forward-pass backends of the search's float32 network on the CPU.

The search needs only the policy and value logits of a batch of encoded positions. Besides the
plain torch module (``eager``), the same float32 network can run

- ``compile``: ``torch.compile`` (Inductor, dynamic batch size: one compilation serves every
  batch; needs a C++ compiler; tens of seconds the first time in a process);
- ``onnx``: exported to ONNX and run by ONNX Runtime's CPU provider with as many threads as torch
  has (self-play uses one per process);
- ``onnx-int8``: the same export with its convolutions quantized to int8 (static, QDQ, calibrated on
  the first batch it is given); approximate, not float32.

``onnxruntime`` and ``onnx`` are optional (``pip install 'tw_rl[onnx]'``) and imported only when an
ONNX backend is built. Every backend is built from a snapshot of the network's weights; the caller
(``tw_rl.training.net.NetPolicyValue``) rebuilds it when the weights change.
"""

from __future__ import annotations

import copy
import io
import logging
import warnings
from collections.abc import Callable

import numpy as np
import torch
from torch import nn

BACKENDS = ("eager", "compile", "onnx", "onnx-int8")

Forward = Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]]  # planes -> (policy, value) logits


class BackendUnavailable(ValueError):
    """A backend that cannot run here (a missing package, a device it does not support); one line."""


def check_backend(backend: str, dtype: torch.dtype, device: torch.device) -> None:
    """Raise ``ValueError`` (one line) unless ``backend`` can run passes of ``dtype`` on ``device``."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend != "eager" and (dtype != torch.float32 or device.type != "cpu"):
        raise BackendUnavailable(
            f"backend {backend!r} runs float32 passes on the CPU only "
            f"(got {str(dtype).removeprefix('torch.')} on {device.type}); use backend 'eager' there, "
            "or precision float32"
        )
    if backend.startswith("onnx"):
        _import_onnxruntime()


class _Logits(nn.Module):
    """The two outputs the search reads, as a tuple (what tracing and export want)."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.net(planes)
        return out["policy"], out["value"]


def plain_copy(net: nn.Module) -> nn.Module:
    """An eval-mode copy of ``net`` whose hexagonal convolutions are ordinary ``Conv2d`` with the two
    masked corners already zero in the weights (what an exporter and a quantizer can read). A
    hexagonal convolution is any ``Conv2d`` carrying a ``hex_mask`` buffer (``net.HexConv``), found
    by that buffer so that this module does not import the network's (which imports this one)."""
    net = copy.deepcopy(net).eval()

    def replace(module: nn.Module) -> None:
        for name, child in module.named_children():
            if isinstance(child, nn.Conv2d) and hasattr(child, "hex_mask"):
                bias = child.bias is not None
                conv = nn.Conv2d(child.in_channels, child.out_channels, 3, padding=1, bias=bias)
                with torch.no_grad():
                    conv.weight.copy_(child.weight * child.hex_mask)
                    if child.bias is not None:
                        conv.bias.copy_(child.bias)
                setattr(module, name, conv)
            else:
                replace(child)

    replace(net)
    return net.eval()


def build_forward(backend: str, net: nn.Module, calibration: torch.Tensor | None = None) -> Forward:
    """The forward pass of ``backend`` for (a snapshot of) ``net``'s current float32 weights on the CPU.

    ``compile`` follows later in-place weight changes by itself (parameters are inputs of the graph);
    the ONNX backends hold a copy and must be rebuilt. ``calibration``: the planes ``onnx-int8`` sets
    its activation ranges from (required for it)."""
    if backend == "eager":
        logits = _Logits(net.eval())
        return logits
    if backend == "compile":
        compiled = torch.compile(_Logits(net.eval()), dynamic=True)
        return compiled
    if backend in ("onnx", "onnx-int8"):
        if backend == "onnx-int8" and calibration is None:
            raise ValueError("backend 'onnx-int8' needs calibration planes")
        return _onnx_forward(net, calibration if backend == "onnx-int8" else None)
    raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")


def _import_onnxruntime():
    try:
        import onnx  # noqa: F401  (the exporter writes with it)
        import onnxruntime
    except ImportError as error:
        raise BackendUnavailable(
            f"the ONNX backends need onnxruntime and onnx ({error.name} is missing): "
            "pip install 'tw_rl[onnx]'"
        ) from None
    return onnxruntime


def export_onnx(net: nn.Module, example: torch.Tensor) -> bytes:
    """``net``'s policy and value logits as an ONNX model (batch size free), in memory."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notices
        torch.onnx.export(
            _Logits(plain_copy(net)),
            (example,),
            buffer,
            input_names=["planes"],
            output_names=["policy", "value"],
            dynamic_axes={"planes": {0: "batch"}, "policy": {0: "batch"}, "value": {0: "batch"}},
            dynamo=False,
        )
    return buffer.getvalue()


def quantize_onnx(model: bytes, calibration: np.ndarray) -> bytes:
    """``model`` with its convolutions quantized to int8 (weights per channel, activations per tensor,
    from the ranges seen on ``calibration``)."""
    _import_onnxruntime()
    from onnxruntime.quantization import CalibrationDataReader

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.batches = iter([{"planes": calibration[i : i + 64]} for i in range(0, len(calibration), 64)])

        def get_next(self):
            return next(self.batches, None)

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer's advice on pre-processing, logged on the root logger
    try:
        return _quantize(model, Reader())
    finally:
        root.setLevel(level)


def _quantize(model: bytes, reader) -> bytes:
    import tempfile
    from pathlib import Path

    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "float.onnx", Path(folder) / "int8.onnx"
        source.write_bytes(model)
        quantize_static(
            str(source),
            str(target),
            reader,
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["Conv"],
            per_channel=True,
        )
        return target.read_bytes()


def _onnx_forward(net: nn.Module, calibration: torch.Tensor | None) -> Forward:
    ort = _import_onnxruntime()
    width = 2 * net.size - 1
    example = calibration[:8] if calibration is not None else torch.zeros(2, net.in_planes, width, width)
    model = export_onnx(net, example)
    if calibration is not None:
        model = quantize_onnx(model, calibration.numpy())
    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, torch.get_num_threads())
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

    def forward(planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        policy, value = session.run(None, {"planes": planes.numpy()})
        return torch.from_numpy(policy), torch.from_numpy(value)

    return forward
