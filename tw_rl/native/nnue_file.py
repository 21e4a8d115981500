"""The native network's weights file (arch ``nnue-1``): its tensors, scales and checks
(standard library only; the C++ reader is ``src/nnue_network.hpp``, the torch twin that writes
it ``tw_rl.expert.nnue_net``).

The file is the student's container (``tw_rl.codecup.weights``: magic, version, board size,
JSON header, tensors, sha256) with header ``arch`` "nnue-1", ``width`` (the accumulator's
lanes), ``hidden`` (the dense layer's), ``features`` (inputs per cell, ``PER_CELL``) and
``quantization``: "int8" or "int16" (played in integers, on the grids of its ``Scheme``) or
"float32" (the same network unquantized, the reference that quantization is measured against).
In an integer file every value lies on its tensor's grid (``Scheme.grid``):

- int8: ``ft_w`` is dtype "i8" with every row's scale 1/256, ``l2_w``, ``out_w`` and ``pol_w``
  "i8" with 1/128; activations on 1/64, clipped to 0..127.
- int16: ``ft_w`` is dtype "z16" (int16, variable-length coded: most first-layer weights are
  small, so the file stays near the int8 one's size) with every row's scale 1/2048, the dense
  weights "z16" with 1/1024 (at most 2047 in size, so that no int32 sum of 1,024 lanes can
  overflow); activations on 1/512, clipped to 0..1016.  Each rounding is 8 times finer than
  int8's.

Both: ``ft_b`` on the first layer's grid, ``pol_cell`` on the dense weights', ``l2_b``,
``out_b`` and ``pol_b`` on the dense sums' (weights' grid times activations'), stored as
float32 (exact).  The clipped ReLU's top is 127/64 = 1016/512 in both, so a float32 file plays
the same network whichever scheme it was trained for.

The Python bot does not play this network: its loader refuses the file in one line (it holds
an 'nnue-1' network, not 'student-1'); ``check`` is what the submission's builder asks instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from tw_rl.codecup.weights import Weights, WeightsError

ARCH = "nnue-1"
QUANTIZATIONS = ("int8", "int16", "float32")
# inputs per cell, by group (nnue_features.hpp): content, sight pair, legality, territory
GROUPS = (("content", 14), ("sight", 25), ("legal", 4), ("territory", 4))
PER_CELL = sum(size for _, size in GROUPS)  # 47
WEIGHT_MATRICES = ("ft_w", "l2_w", "out_w", "pol_w")  # stored as integers (dtype i8 or z16)


@dataclass(frozen=True)
class Scheme:
    """An integer network's grids: a value is q / one, |q| at most its top."""

    name: str
    ft_one: int  # the first layer's weights and sums
    w_one: int  # the dense layers' weights
    one: int  # activations
    act_max: int  # the clipped ReLU's top, in q
    ft_top: int  # |q| of a first-layer weight
    w_top: int  # |q| of a dense weight
    dtype: str  # how the weight matrices are stored

    @property
    def sum_one(self) -> int:
        """The dense sums' grid: activation times weight."""
        return self.w_one * self.one

    @property
    def grid(self) -> dict[str, tuple[int, int]]:
        """tensor -> (one, top): its values are q / one with |q| at most top."""
        return {
            "ft_w": (self.ft_one, self.ft_top),
            "ft_b": (self.ft_one, 32767),
            "l2_w": (self.w_one, self.w_top),
            "l2_b": (self.sum_one, 1 << 24),
            "out_w": (self.w_one, self.w_top),
            "out_b": (self.sum_one, 1 << 24),
            "pol_w": (self.w_one, self.w_top),
            "pol_b": (self.sum_one, 1 << 24),
            "pol_cell": (self.w_one, 32767),
        }


SCHEMES = {
    "int8": Scheme("int8", ft_one=256, w_one=128, one=64, act_max=127, ft_top=127, w_top=127, dtype="i8"),
    "int16": Scheme(
        "int16", ft_one=2048, w_one=1024, one=512, act_max=1016, ft_top=32767, w_top=2047, dtype="z16"
    ),
}
DEFAULT_QUANTIZATION = "int16"
TOP = 127 / 64  # the clipped ReLU's top in every scheme (act_max / one)
assert all(s.act_max / s.one == TOP for s in SCHEMES.values())


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
        if quantization in SCHEMES:
            one, top = SCHEMES[quantization].grid[name]
            for x in values:
                q = round(x * one)
                if abs(x * one - q) >= 1e-6 or abs(q) > top:
                    raise WeightsError(
                        f"tensor {name!r} is off the integer grid of an {quantization} nnue-1 file"
                    )
