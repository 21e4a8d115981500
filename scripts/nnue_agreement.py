"""Quantization of the native network measured, int16 or int8 against float32.

The C++ integer network against its torch twin, the C++ float network against the twin's float
forward, what the integers cost against float, and how often fixed-size searches with the
integer and the float network (both C++) pick the same move.

    python scripts/nnue_agreement.py runs/nnue/train-g0/nnue.twnet runs/nnue/train-g0/nnue-float.twnet

Positions: every position of ``--games`` seeded greedy-and-random games (tw_rl.expert.nnue_check);
the search check uses those with more than one legal move, every ``--every``-th.

``one_rounding_alone``: the float network's twin with one part of the integer network's rounding
(the first layer's weights, the dense weights, the activations) against the float twin.

``--noise 0.001 0.01 ...`` adds the search's own sensitivity: for each level e, the float
network with every weight multiplied by (1 + e * a standard normal draw, seed 7) against the
float network itself, the largest output differences and the share of equal moves. It says how
small the output differences must be for searches of this size to agree on a given share.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

from tw_rl.codecup.errors import WeightsError
from tw_rl.expert import nnue_check as check
from tw_rl.expert.nnue_net import PARTS, load_weights, write_weights
from tw_rl.expert.selfplay import native_binary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("integer", type=Path, help="the integer (int16 or int8) weights file (nnue.twnet)")
    p.add_argument("float32", type=Path, help="the same network in float32 (nnue-float.twnet)")
    p.add_argument("--games", type=int, default=20, help="games whose positions are used (default 20)")
    p.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    p.add_argument("--sims", type=int, default=64, help="simulations of each search (default 64)")
    p.add_argument("--every", type=int, default=1, help="search every k-th position (default 1)")
    p.add_argument(
        "--noise",
        type=float,
        nargs="*",
        default=[],
        help="relative weight noise levels: the float search against itself perturbed (default none)",
    )
    args = p.parse_args(argv)
    try:
        net_integer = load_weights(args.integer)
        net_float = load_weights(args.float32, scheme=net_integer.scheme.name)
    except WeightsError as err:
        p.error(str(err))
    binary = native_binary(Path(tempfile.mkdtemp(prefix="tw_rl-nnue-")))
    records = check.game_positions(args.games, args.seed)
    t0 = time.perf_counter()
    c_integer = check.native_outputs(binary, args.integer, records)
    c_float = check.native_outputs(binary, args.float32, records)
    figures = {
        "positions": len(records),
        "quantization": net_integer.scheme.name,
        "cpp_integer_vs_twin_integer": check.largest_differences(
            c_integer, check.twin_outputs(net_integer, records, True), records
        ),
        "cpp_float_vs_twin_float": check.largest_differences(
            c_float, check.twin_outputs(net_float, records, False), records
        ),
        "cpp_integer_vs_cpp_float": check.largest_differences(c_integer, c_float, records),
    }
    searched = [r for r in records if len(check.position(r).legal_moves()) > 1][:: args.every]
    a = check.search_moves(binary, args.integer, searched, args.sims)
    b = check.search_moves(binary, args.float32, searched, args.sims)
    same = sum(x == y for x, y in zip(a, b, strict=True))
    figures["search"] = {
        "positions": len(searched),
        "sims": args.sims,
        "same_move": same,
        "share": same / len(searched),
    }
    float_twin = check.twin_outputs(net_float, records, False)
    figures["one_rounding_alone"] = {  # the twin with one part of the integer network rounded
        part: check.largest_differences(check.twin_outputs(net_float, records, {part}), float_twin, records)
        for part in sorted(PARTS)
    }
    figures["noise"] = [
        noise_floor(binary, args.float32, records, c_float, searched, b, args.sims, level)
        for level in args.noise
    ]
    figures["wall_seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(figures, indent=2))
    return 0


def noise_floor(
    binary: Path,
    float32: Path,
    records: list,
    reference: dict,
    searched: list,
    moves: list[int],
    sims: int,
    level: float,
) -> dict:
    """The float network with relative weight noise ``level`` against itself (``reference``: its
    outputs on ``records``; ``moves``: its searches' moves on ``searched``)."""
    net = load_weights(float32)
    draws = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for weight in net.parameters():
            weight.mul_(1 + level * torch.randn(weight.shape, generator=draws, dtype=weight.dtype))
    path = binary.parent / f"noise-{level}.twnet"
    write_weights(net, path, "float32")
    differences = check.largest_differences(reference, check.native_outputs(binary, path, records), records)
    noisy = check.search_moves(binary, path, searched, sims)
    same = sum(x == y for x, y in zip(moves, noisy, strict=True))
    return {
        "level": level,
        "largest_differences": differences,
        "same_move": same,
        "share": same / len(searched),
    }


if __name__ == "__main__":
    sys.exit(main())
