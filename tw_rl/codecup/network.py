"""The student network in pure Python (standard library only) and its evaluator for the bot.

The torch twin is ``tw_rl.export.student.StudentNet``, which trains the weights this module reads
(file format: ``weights.py``).  The two compute the same function; the tests check it.

Inputs: three small integer codes per cell, all from the side to move ("me"):

    a = owner * 7 + height           owner: 0 empty, 1 mine, 2 theirs, 3 neutral; height 0..6
    b = my sight * 7 + their sight   sight: 0..6 rays seeing a stack of that colour first
    c = 8 * I may place here + 4 * they could place here (CodeCup rule, no suicide)
        + 1 * in my territory + 2 * in their territory (the judge's simulations)

and two global inputs: I play red; the opponent has just passed.

Network (W = width, H = hidden; ``mixing`` "mean" or "directional")::

    self_i = S[a_i] + S[28 + b_i] + S[77 + c_i] + bias                  (table S: 93 x W)
    msg_i,d = M[d, a_i] + M[d, 28 + b_i] + M[d, 77 + c_i]               (table M: D x 93 x W)
    h_i = relu(self_i + (sum over directions d of msg_{nbr_d(i), d}, or edge_d off the board) / 6)
    policy logit of cell i = u . h_i + u0
    g = mean_i h_i;  z = relu(G g + Gg . globals + g0)                    (G: H x W)
    value = tanh(v . z + v0);  pass logit = q . z + q0

"mean" has one message table (D = 1, every direction alike: the network is then invariant
under the 12 board symmetries); "directional" has one per direction (D = 6, a hexagonal
convolution).  Both cost the same here.

Why this shape (the bot runs it in CPython, where a multiply-add costs tens of nanoseconds):
the input embedding is linear in one-hot codes, so it is a *table lookup*: the sum of the
three rows (and the direction messages) is cached per distinct cell code (~375 occur in
games), leaving one list index per cell.  The one neighbourhood step is a sum of 8 W-vectors
per cell (self, the edge constant, 6 neighbours) and a ReLU; it runs on packed fixed-point
vectors (``Network``), seven int additions and a few whole-int operations per cell instead
of 8 * W float additions.  The policy needs one dot product per *legal* cell.  Measured on
positions of the bot benchmark (``scripts/bench_bot.py``; the territory and sight come with
the position), one core of the development machine, Python 3.11, CPU time per evaluation
with W = H = 32, "mean" (release 0.1, all floats: 0.45 ms, the mixing 0.38 ms of it):

    features (bit planes -> keys)       0.012 ms
    mixing + ReLU (packed)              0.078 ms
    pooling and the hidden layer        0.022 ms
    legal logits (~43 dot products)     0.075 ms
    softmax and the rest                0.012 ms
    total                               0.20 ms = ~5,000 evaluations per second

A second W x W layer per cell would add 91 * W * W ~ 93,000 multiply-adds (several ms) and
is left out.
"""

import math
import sys
from array import array
from operator import itemgetter, mul

from tw_rl.codecup.errors import WeightsError
from tw_rl.codecup.rules import RED, Board
from tw_rl.codecup.weights import read_weights

# The mixing step runs on fixed-point vectors packed in Python ints (see ``Network``).
FIXED_BITS = 20  # a value v is stored as round(v * 2**20)
LANE_BITS = 64  # one hidden unit per 64-bit lane
_LANE_BIAS = 1 << 40  # added to every lane of a stored vector, so that lanes stay non-negative
HIDDEN_BITS = 24  # the hidden layer's G g: g and G as round(v * 2**24)

ARCH = "student-1"
MAX_HEIGHT = 6
OWNER_ROWS = 4 * (MAX_HEIGHT + 1)  # 28: owner category x height
SIGHT_ROWS = 7 * 7  # 49: my sight x their sight
STATUS_ROWS = 16  # legal for me, legal for them, my territory, their territory
OFFSETS = (0, OWNER_ROWS, OWNER_ROWS + SIGHT_ROWS)
ROWS = OWNER_ROWS + SIGHT_ROWS + STATUS_ROWS  # 93
NUM_GLOBALS = 2  # I play red; the opponent has just passed
MIXINGS = ("mean", "directional")
# A cell's code as one 16-bit key: low byte (a_sight * 7 + b_sight) * 4 + 2 * I may place + they
# may place; high byte (owner * 7 + height) * 4 + 2 * their territory + my territory.
NUM_KEYS = 112 * 256

# Tensors of the weights file: name -> shape (W = width, H = hidden, D = directions).
TENSOR_SHAPES = {
    "self_table": ("ROWS", "W"),
    "self_bias": ("W",),
    "msg_table": ("D*ROWS", "W"),
    "edge": ("D", "W"),
    "policy_w": ("W",),
    "policy_b": (1,),
    "hidden_w": ("H", "W"),
    "hidden_g": ("H", NUM_GLOBALS),
    "hidden_b": ("H",),
    "value_w": ("H",),
    "value_b": (1,),
    "pass_w": ("H",),
    "pass_b": (1,),
}


def tensor_shapes(width, hidden, mixing):
    """{name: shape} of the weights file's tensors for these hyper-parameters."""
    sizes = {"W": width, "H": hidden, "D": 1 if mixing == "mean" else 6, "ROWS": ROWS}
    sizes["D*ROWS"] = sizes["D"] * ROWS
    return {k: tuple(sizes.get(d, d) for d in shape) for k, shape in TENSOR_SHAPES.items()}


def cell_codes(position):
    """([(a, b, c) per cell], [I play red, opponent passed], my legal placements).

    The inputs of the network for ``position`` (see the module docstring).
    """
    keys, glob, legal = _features(position)
    codes = [(k >> 10, (k & 255) >> 2, (k & 3) << 2 | (k >> 8) & 3) for k in keys]
    return codes, glob, legal


class _Spread:
    """Per board: turn bit planes into one byte per cell (bit j of a plane -> byte j)."""

    def __init__(self, board):
        lane = board.lane
        self.lane = lane
        self.format = f"0{lane}b"
        self.ones = int.from_bytes(b"\x01" * lane, "little")
        self.gather = itemgetter(*board.bit_index)
        self.key_bytes = bytearray(2 * lane)
        # the low byte of a little-endian 16-bit key comes first
        self.low, self.high = (0, 1) if sys.byteorder == "little" else (1, 0)


_SPREADS = {}


def _features(position):
    """(key per cell, globals, my legal placements) with the 16-bit keys of ``NUM_KEYS``.

    Every input is a bit plane of the rules engine; each plane becomes one byte per cell through
    its binary string (the characters '0' and '1' are the bytes 0x30 and 0x31), weighted sums of
    those give the two bytes of every key at once.
    """
    board = position.board
    sp = _SPREADS.get(board.size)
    if sp is None:
        sp = _SPREADS[board.size] = _Spread(board)
    red, white, neutral, (h0, h1, h2) = position.stacks()
    rc, wc = position.counts()
    tr, tw = position.territory_bits()
    red_up, white_up, red_more, white_more = position.comparisons()
    me = position.to_move
    if me == RED:
        mine, theirs, a, b, tm, tt = red, white, rc, wc, tr, tw
        legal_me = red_up & ~white_more
        legal_them = white_up & ~red_more
    else:
        mine, theirs, a, b, tm, tt = white, red, wc, rc, tw, tr
        legal_me = white_up & ~red_more
        legal_them = red_up & ~white_more
    top = h0 & h1 & h2  # a height of 7 or more reads as MAX_HEIGHT (6)
    if top:
        h0 &= ~top
    fmt = sp.format
    frm = int.from_bytes
    low = (
        28 * frm(format(a[0], fmt).encode(), "big")
        + 56 * frm(format(a[1], fmt).encode(), "big")
        + 112 * frm(format(a[2], fmt).encode(), "big")
        + 4 * frm(format(b[0], fmt).encode(), "big")
        + 8 * frm(format(b[1], fmt).encode(), "big")
        + 16 * frm(format(b[2], fmt).encode(), "big")
        + 2 * frm(format(legal_me, fmt).encode(), "big")
        + frm(format(legal_them, fmt).encode(), "big")
        - 0x30 * 227 * sp.ones
    )
    high = (
        28 * frm(format(mine | neutral, fmt).encode(), "big")
        + 56 * frm(format(theirs | neutral, fmt).encode(), "big")
        + 4 * frm(format(h0, fmt).encode(), "big")
        + 8 * frm(format(h1, fmt).encode(), "big")
        + 16 * frm(format(h2, fmt).encode(), "big")
        + frm(format(tm, fmt).encode(), "big")
        + 2 * frm(format(tt, fmt).encode(), "big")
        - 0x30 * 115 * sp.ones
    )
    buf = sp.key_bytes
    buf[sp.low :: 2] = low.to_bytes(sp.lane, "little")
    buf[sp.high :: 2] = high.to_bytes(sp.lane, "little")
    keys = sp.gather(memoryview(buf).cast("H"))
    glob = (1.0 if me == RED else 0.0, 1.0 if position.passes else 0.0)
    return keys, glob, board.cells(legal_me)


if sys.byteorder == "little":

    def _lanes(x, nbytes):
        """The 64-bit lanes of x, lowest first."""
        return memoryview(x.to_bytes(nbytes, "little")).cast("Q")

else:

    def _lanes(x, nbytes):
        """The 64-bit lanes of x, lowest first."""
        lanes = array("Q", x.to_bytes(nbytes, "little"))
        lanes.byteswap()
        return lanes


class Network:
    """The student's forward pass, from a parsed weights file.

    The mixing step (~85% of the work in floats) runs on packed fixed-point vectors: each
    cached table row is one int whose 64-bit lanes hold the W values as round(v * 2**20) plus
    a bias of 2**40, so a cell's sum of 8 vectors is 7 int additions and its ReLU a handful
    of whole-int operations (a lane is positive when adding a constant sets its top bit).
    Rounding costs at most 8 * 2**-21 per hidden value (~4e-6); pooling, the MLP and the heads
    are plain floats."""

    def __init__(self, weights):
        header = weights.header
        if header.get("arch") != ARCH:
            raise WeightsError(f"the weights file holds a {header.get('arch')!r} network, not {ARCH!r}")
        try:
            width = int(header["width"])
            hidden = int(header["hidden"])
            mixing = header["mixing"]
        except (KeyError, TypeError, ValueError):
            raise WeightsError("the weights file's header lacks width, hidden or mixing") from None
        if mixing not in MIXINGS:
            raise WeightsError(f"the weights file has an unknown mixing {mixing!r}")
        for name, shape in tensor_shapes(width, hidden, mixing).items():
            if weights.tensor(name)[0] != shape:
                raise WeightsError(f"tensor {name!r} has shape {weights.tensor(name)[0]}, expected {shape}")
        self.size = weights.board_size
        try:
            self.board = Board(self.size)
        except ValueError:
            raise WeightsError(f"the weights file names an unknown board size {self.size}") from None
        self.width = width
        self.hidden = hidden
        self.mixing = mixing
        self.directions = 1 if mixing == "mean" else 6
        w = width
        sixth = 1.0 / 6.0
        self._self_rows = weights.rows("self_table")
        self._msg_rows = [[x * sixth for x in row] for row in weights.rows("msg_table")]
        self._self_bias = weights.rows("self_bias")
        edge = [[x * sixth for x in row] for row in weights.rows("edge")]
        self.policy_w = weights.rows("policy_w")
        self.policy_b = weights.rows("policy_b")[0]
        self.hidden_w = weights.rows("hidden_w")
        self.hidden_g = weights.rows("hidden_g")
        self.hidden_b = weights.rows("hidden_b")
        self.value_w = weights.rows("value_w")
        self.value_b = weights.rows("value_b")[0]
        self.pass_w = weights.rows("pass_w")
        self.pass_b = weights.rows("pass_b")[0]
        # Geometry: neighbour per direction (n = off the board) and the per-cell constant:
        # the self bias plus the edge message of every missing neighbour.
        board = self.board
        n = board.num_cells
        self.num_cells = n
        nbr = []
        const = []
        for i in range(n):
            row = []
            k = list(self._self_bias)
            for d in range(6):
                ray = board.rays[i][d]
                if ray:
                    row.append(ray[0])
                else:
                    row.append(n)
                    e = edge[d if self.directions == 6 else 0]
                    k = [p + q for p, q in zip(k, e, strict=True)]
            nbr.append(tuple(row))
            const.append(k)
        self._nbr = nbr
        # Fixed point: every W-vector the mixing adds is one int, lane j (64 bits) holding
        # round(v_j * 2**20) + 2**40; a cell's sum of 8 such vectors is 7 int additions.
        self._scale = float(1 << FIXED_BITS)
        self._lane_ones = sum(1 << (LANE_BITS * j) for j in range(w))
        self._lane_bytes = LANE_BITS // 8 * w
        self._const = [self._pack(k) for k in const]
        zero = self._pack([0.0] * w)
        self._zero = zero if self.directions == 1 else (zero,) * 6  # the message from off the board
        self._biases8 = 8 * _LANE_BIAS * self._lane_ones
        # x + this sets a lane's top bit exactly when the lane is above 8 biases (the sum > 0)
        self._positive = ((1 << (LANE_BITS - 1)) - 8 * _LANE_BIAS - 1) * self._lane_ones
        self._lane_full = (1 << LANE_BITS) - 1
        # key -> packed self vector; key -> packed message ("mean") or 6 messages ("directional")
        self._self_cache = [None] * NUM_KEYS
        self._msg_cache = [None] * NUM_KEYS
        self.inv_cells = 1.0 / n
        inv_scale = 1.0 / self._scale
        self._policy_w_fixed = [x * inv_scale for x in self.policy_w]  # u for lanes in fixed point
        # The hidden layer z = G g as a sum of W packed columns of G, each scaled by g_j:
        # lane k of column j holds round(G_kj * 2**24) + a bias above every |G_kj| * 2**24.
        top = max((abs(x) for row in self.hidden_w for x in row), default=0.0)
        self._col_bias = 1 << (HIDDEN_BITS + max(1, math.frexp(top)[1] + 1))
        self._hidden_cols = [
            sum(
                (round(row[j] * (1 << HIDDEN_BITS)) + self._col_bias) << (LANE_BITS * k)
                for k, row in enumerate(self.hidden_w)
            )
            for j in range(w)
        ]
        self._hidden_lane_bytes = LANE_BITS // 8 * hidden

    def _pack(self, vector):
        """A W-vector of floats as one int of fixed-point lanes (see ``__init__``)."""
        scale = self._scale
        return sum((round(x * scale) + _LANE_BIAS) << (LANE_BITS * j) for j, x in enumerate(vector))

    def _rows(self, key):
        """(self vector, 6 direction messages) of a cell key, as float lists."""
        a = key >> 10
        b = OWNER_ROWS + ((key & 255) >> 2)
        c = OWNER_ROWS + SIGHT_ROWS + ((key & 3) << 2 | (key >> 8) & 3)
        t = self._self_rows
        s = [x + y + z for x, y, z in zip(t[a], t[b], t[c], strict=True)]
        m = self._msg_rows
        if self.directions == 1:
            msgs = ([x + y + z for x, y, z in zip(m[a], m[b], m[c], strict=True)],) * 6
        else:
            msgs = tuple(
                [x + y + z for x, y, z in zip(m[o + a], m[o + b], m[o + c], strict=True)]
                for o in range(0, 6 * ROWS, ROWS)
            )
        return s, msgs

    def _entry(self, key):
        s, msgs = self._rows(key)
        self._self_cache[key] = self._pack(s)
        if self.directions == 1:
            self._msg_cache[key] = self._pack(msgs[0])
        else:
            self._msg_cache[key] = tuple(self._pack(m) for m in msgs)

    def hidden_cells(self, keys):
        """h_i for the cell keys of a position: one int per cell, lane j = round(h_ij * 2**20)."""
        selfs = list(map(self._self_cache.__getitem__, keys))
        if None in selfs:  # codes not seen before: make their packed rows
            for k in keys:
                if self._self_cache[k] is None:
                    self._entry(k)
            selfs = list(map(self._self_cache.__getitem__, keys))
        msgs = list(map(self._msg_cache.__getitem__, keys))
        msgs.append(self._zero)
        positive = self._positive
        top = LANE_BITS - 1
        ones = self._lane_ones
        full = self._lane_full
        biases = self._biases8
        out = []
        if self.directions == 1:  # every direction sends the same message
            for s, k, (j0, j1, j2, j3, j4, j5) in zip(selfs, self._const, self._nbr, strict=True):
                x = s + k + msgs[j0] + msgs[j1] + msgs[j2] + msgs[j3] + msgs[j4] + msgs[j5]
                keep = (((x + positive) >> top) & ones) * full  # all ones in the lanes above zero
                out.append((x & keep) - (biases & keep))  # ReLU: the positive lanes, biases removed
        else:
            for s, k, (j0, j1, j2, j3, j4, j5) in zip(selfs, self._const, self._nbr, strict=True):
                x = s + k + msgs[j0][0] + msgs[j1][1] + msgs[j2][2] + msgs[j3][3] + msgs[j4][4]
                x += msgs[j5][5]
                keep = (((x + positive) >> top) & ones) * full
                out.append((x & keep) - (biases & keep))
        return out

    def run(self, keys, glob, cells):
        """({move: logit} for the moves in ``cells`` (n = pass), value) for one position."""
        h = self.hidden_cells(keys)
        n = self.num_cells
        nbytes = self._lane_bytes
        inv = self.inv_cells / self._scale
        g = [x * inv for x in _lanes(sum(h), nbytes)]  # the lanes hold at most 91 * 2**44: no carry
        r, p = glob
        z = self._hidden_layer(g, r, p)
        value = math.tanh(sum(map(mul, self.value_w, z)) + self.value_b)
        u = self._policy_w_fixed
        ub = self.policy_b
        logits = {}
        for y in cells:
            if y == n:
                logits[y] = sum(map(mul, self.pass_w, z)) + self.pass_b
            else:
                logits[y] = sum(map(mul, _lanes(h[y], nbytes), u)) + ub
        return logits, value

    def _hidden_layer(self, g, r, p):
        """z = relu(G g + Gg (r, p) + g0), G g in fixed point when its lanes cannot overflow."""
        scale = 1 << HIDDEN_BITS
        gq = [round(x * scale) for x in g]
        total = sum(gq)
        if min(gq) >= 0 and total * 2 * self._col_bias < 1 << (LANE_BITS - 1):
            acc = 0
            for x, col in zip(gq, self._hidden_cols, strict=True):
                if x:
                    acc += x * col
            offset = total * self._col_bias
            inv = 1.0 / (scale * scale)
            z = []
            lanes = _lanes(acc, self._hidden_lane_bytes)
            for lane, grow, b in zip(lanes, self.hidden_g, self.hidden_b, strict=True):
                x = (lane - offset) * inv + grow[0] * r + grow[1] * p + b
                z.append(x if x > 0.0 else 0.0)
            return z
        z = []
        for wrow, grow, b in zip(self.hidden_w, self.hidden_g, self.hidden_b, strict=True):
            x = sum(map(mul, wrow, g)) + grow[0] * r + grow[1] * p + b
            z.append(x if x > 0.0 else 0.0)
        return z

    def check_board(self, position):
        if position.board.size != self.size:
            raise WeightsError(
                f"the network was made for the size-{self.size} board, not size {position.board.size}"
            )

    def outputs(self, position):
        """(logits of every cell and the pass [N+1], value for the side to move)."""
        self.check_board(position)
        keys, glob, _ = _features(position)
        logits, value = self.run(keys, glob, range(self.num_cells + 1))
        return [logits[y] for y in range(self.num_cells + 1)], value


class NetworkEvaluator:
    """The evaluator seam (``evaluation.py``) over the student network of a weights file.

    Priors: softmax of the logits over the legal moves; value: for the side to move.
    ``board_size`` (if given; ``python -m tw_rl.codecup`` passes its ``--size``) is checked
    when the file is read; without it a position of another size is refused (WeightsError,
    one line) at its first evaluation.
    """

    def __init__(self, weights_path, board_size=None):
        self.path = weights_path
        self.network = Network(read_weights(weights_path, board_size))
        self.evaluations = 0

    def evaluate(self, position):
        net = self.network
        net.check_board(position)
        keys, glob, moves = _features(position)
        if position.variant != "codecup":
            moves = position.legal_moves()
        elif not moves:
            moves = [net.num_cells]
        logits, value = net.run(keys, glob, moves)
        self.evaluations += 1
        if len(moves) == 1:
            return {moves[0]: 1.0}, value
        top = max(logits.values())
        exp = math.exp
        weights = {m: exp(x - top) for m, x in logits.items()}
        inv = 1.0 / sum(weights.values())
        return {m: w * inv for m, w in weights.items()}, value
