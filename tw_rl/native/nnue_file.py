"""The native network's weights file (arch ``nnue-1``): its tensors, scales and checks
(standard library only; the C++ reader is ``src/nnue_network.hpp``, the torch twin that writes
it ``tw_rl.expert.nnue_net``).

The file is the student's container (``tw_rl.codecup.weights``: magic, version, board size,
JSON header, tensors, sha256) with header ``arch`` "nnue-1", ``width`` (the accumulator's
lanes), ``hidden`` (the dense layer's), ``features`` (inputs per cell, ``PER_CELL``) and
``quantization``: "int8" (played in integers) or "float32" (the same network unquantized, the
reference that quantization is measured against).  In an int8 file every value lies on its
tensor's integer grid (``GRID``): ``ft_w`` is dtype "i8" with every row's scale 1/256, ``l2_w``,
``out_w`` and ``pol_w`` with 1/128; ``ft_b`` is a multiple of 1/256 and ``pol_cell`` of 1/128
(int16), ``l2_b``, ``out_b`` and ``pol_b`` of 1/8192 (int32), stored as float32 (exact).

The Python bot does not play this network: its loader refuses the file in one line (it holds
an 'nnue-1' network, not 'student-1'); ``check`` is what the submission's builder asks instead.
"""

from __future__ import annotations

from tw_rl.codecup.weights import Weights, WeightsError

ARCH = "nnue-1"
QUANTIZATIONS = ("int8", "float32")
# inputs per cell, by group (nnue_features.hpp): content, sight pair, legality, territory
GROUPS = (("content", 14), ("sight", 25), ("legal", 4), ("territory", 4))
PER_CELL = sum(size for _, size in GROUPS)  # 47
FT_ONE = 256  # the first layer's weights and sums: q / 256
W_ONE = 128  # the dense layers' weights: q / 128
ONE = 64  # activations: q / 64
SUM_ONE = 8192  # dense sums: q / 8192
ACT_MAX = 127  # the clipped ReLU's top, in q
# tensor -> (grid of an int8 file: values are q / grid, |q| at most top)
GRID = {
    "ft_w": (FT_ONE, 127),
    "ft_b": (FT_ONE, 32767),
    "l2_w": (W_ONE, 127),
    "l2_b": (SUM_ONE, 1 << 24),
    "out_w": (W_ONE, 127),
    "out_b": (SUM_ONE, 1 << 24),
    "pol_w": (W_ONE, 127),
    "pol_b": (SUM_ONE, 1 << 24),
    "pol_cell": (W_ONE, 32767),
}
INT8_TENSORS = ("ft_w", "l2_w", "out_w", "pol_w")  # stored as dtype i8 in an int8 file


def cells_of(board_size: int) -> int:
    return 3 * board_size * (board_size - 1) + 1


def tensor_shapes(width: int, hidden: int, cells: int) -> dict[str, tuple[int, ...]]:
    """{tensor: shape} of a network, in the file's order."""
    inputs = cells * PER_CELL
    return {
        "ft_w": (inputs, width),
        "ft_b": (width,),
        "l2_w": (hidden, width),
        "l2_b": (hidden,),
        "out_w": (2, hidden),
        "out_b": (2,),
        "pol_w": (cells, width),
        "pol_b": (cells,),
        "pol_cell": (inputs,),
    }


def check(weights: Weights) -> None:
    """WeightsError (one line) unless ``weights`` is a well-formed nnue-1 network."""
    header = weights.header
    if header.get("arch") != ARCH:
        raise WeightsError(f"the weights file holds a {header.get('arch')!r} network, not {ARCH!r}")
    quantization = header.get("quantization")
    if quantization not in QUANTIZATIONS:
        raise WeightsError(f"the weights file has an unknown quantization {quantization!r}")
    if header.get("features") != PER_CELL:
        raise WeightsError(
            f"the weights file has {header.get('features')!r} features per cell, this bot {PER_CELL}"
        )
    width, hidden = header.get("width"), header.get("hidden")
    shaped = isinstance(width, int) and isinstance(hidden, int)
    if not shaped or not (1 <= width <= 1024 and 1 <= hidden <= 256):
        raise WeightsError("the weights file's width or hidden size is out of range")
    for name, shape in tensor_shapes(width, hidden, cells_of(weights.board_size)).items():
        found, values = weights.tensor(name)
        if tuple(found) != shape:
            raise WeightsError(f"tensor {name!r} has the wrong shape")
        if quantization == "int8":
            one, top = GRID[name]
            for x in values:
                q = round(x * one)
                if abs(x * one - q) >= 1e-6 or abs(q) > top:
                    raise WeightsError(f"tensor {name!r} is off the integer grid of an int8 nnue-1 file")
