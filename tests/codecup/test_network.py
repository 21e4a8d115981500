"""The student's pure-Python forward pass (``tw_rl.codecup.network``: bit-plane features, packed
fixed-point mixing) against a plain float forward pass written from the module's formulas, and its
inputs against the reference list engine; no torch needed (``tests/export`` checks against torch)."""

import math
import random

import pytest
import reference_rules as ref

from tw_rl.codecup.evaluation import default_weights
from tw_rl.codecup.network import ARCH, Network, NetworkEvaluator, cell_codes, tensor_shapes
from tw_rl.codecup.rules import RED, Board, Position, judge_start
from tw_rl.codecup.weights import FORMAT_VERSION, Weights, read_weights

B6 = Board(6)


def random_weights(width, hidden, mixing, seed, spread=0.5):
    rng = random.Random(seed)
    tensors = {}
    for name, shape in tensor_shapes(width, hidden, mixing).items():
        tensors[name] = (shape, [rng.gauss(0.0, spread) for _ in range(math.prod(shape))])
    header = {"arch": ARCH, "width": width, "hidden": hidden, "mixing": mixing, "quantization": "float16"}
    return Weights(FORMAT_VERSION, 6, header, tensors)


def rows(weights, name):
    shape, values = weights.tensors[name]
    if len(shape) == 1:
        return list(values)
    return [values[r * shape[1] : (r + 1) * shape[1]] for r in range(shape[0])]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True))


def float_forward(weights, position):
    """({legal move: logit}, value): the network of the module docstring, in plain floats."""
    codes, (red, passed), legal = cell_codes(position)
    n = B6.num_cells
    directional = weights.header["mixing"] == "directional"
    table, msg_table, edge = rows(weights, "self_table"), rows(weights, "msg_table"), rows(weights, "edge")
    bias = rows(weights, "self_bias")
    width = len(bias)
    h = []
    for i, (a, b, c) in enumerate(codes):
        x = [bias[k] + table[a][k] + table[28 + b][k] + table[77 + c][k] for k in range(width)]
        for d in range(6):
            ray = B6.rays[i][d]
            if ray:
                na, nb, nc = codes[ray[0]]
                m = msg_table[93 * d :] if directional else msg_table
                msg = [m[na][k] + m[28 + nb][k] + m[77 + nc][k] for k in range(width)]
            else:
                msg = edge[d if directional else 0]
            x = [x[k] + msg[k] / 6.0 for k in range(width)]
        h.append([max(0.0, v) for v in x])
    g = [sum(h[i][k] for i in range(n)) / n for k in range(width)]
    hw, hg, hb = rows(weights, "hidden_w"), rows(weights, "hidden_g"), rows(weights, "hidden_b")
    z = [max(0.0, dot(hw[j], g) + hg[j][0] * red + hg[j][1] * passed + hb[j]) for j in range(len(hb))]
    value = math.tanh(dot(rows(weights, "value_w"), z) + rows(weights, "value_b")[0])
    u, ub = rows(weights, "policy_w"), rows(weights, "policy_b")[0]
    logits = {y: dot(u, h[y]) + ub for y in legal}
    if not legal:
        logits[n] = dot(rows(weights, "pass_w"), z) + rows(weights, "pass_b")[0]
    return logits, value


def positions(count, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.start(B6, *judge_start(B6, rng))
        for _ in range(rng.randrange(0, 70)):
            if pos.over:
                break
            pos.play(rng.choice(pos.legal_moves()))
        if not pos.over:
            out.append(pos)
    return out


@pytest.mark.parametrize("mixing", ["mean", "directional"])
def test_packed_forward_matches_floats(mixing):
    weights = random_weights(width=8, hidden=6, mixing=mixing, seed=len(mixing))
    net = Network(weights)
    for pos in positions(12, seed=3):
        expected, value = float_forward(weights, pos)
        logits, got = net.outputs(pos)
        assert abs(got - value) < 2e-5
        assert max(abs(logits[y] - x) for y, x in expected.items()) < 2e-5


def test_the_shipped_student_matches_floats():
    weights = read_weights(default_weights(6), 6)
    net = Network(weights)
    evaluator = NetworkEvaluator(default_weights(6))
    for pos in positions(6, seed=4):
        expected, value = float_forward(weights, pos)
        logits, got = net.outputs(pos)
        assert abs(got - value) < 2e-5
        assert max(abs(logits[y] - x) for y, x in expected.items()) < 2e-5
        priors, v = evaluator.evaluate(pos)
        assert sorted(priors) == pos.legal_moves() and v == got
        assert abs(sum(priors.values()) - 1.0) < 1e-9


def test_inputs_match_the_reference_engine():
    rb = ref.Board(6)
    for pos in positions(25, seed=5):
        r = ref.Position(rb)
        snap = pos.copy()
        r.owner, r.height, r.to_move, r.passes = list(snap.owner), list(snap.height), pos.to_move, pos.passes
        me, them = pos.to_move, 3 - pos.to_move
        mine, theirs = r.territory() if me == RED else r.territory()[::-1]
        cat = {0: 0, me: 1, them: 2, 3: 3}
        expected = []
        for y in range(rb.num_cells):
            a, b, h = r.sight(y, me), r.sight(y, them), min(r.height[y], 6)
            c = 8 * (a > h and b <= a) + 4 * (b > h and a <= b) + (y in mine) + 2 * (y in theirs)
            expected.append((cat[r.owner[y]] * 7 + h, a * 7 + b, c))
        codes, glob, legal = cell_codes(pos)
        assert codes == expected
        assert glob == (1.0 if me == RED else 0.0, 1.0 if pos.passes else 0.0)
        assert legal == [m for m in r.legal_moves() if m != rb.num_cells]
