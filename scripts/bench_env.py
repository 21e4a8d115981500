"""Benchmark the rules engines with random play: batched (compiled or numpy) vs the scalar twin.

Plays full random games on a batch of boards through the batched engine (legal masks and,
under CodeCup rules, the end detection after every move), then games one at a time through the
standard-library engine, and prints moves per second for each, the ratio, and where the batched
engine's time goes. Every size, rule set, batch and engine of one invocation runs in the same
process, back to back; the scalar twin once per size and rule set. Figures go in docs/results/.

    python scripts/bench_env.py                                  # size 6, batch 1024
    python scripts/bench_env.py --sizes 6,8 --batches 64,1024,4096 --engines compiled,numpy
    python scripts/bench_env.py --size 8 --batch 256 --scalar-games 100 --json

Speeds are moves per CPU second of the process (``time.process_time``: the machine is shared, and
wall time counts other people's work too); every figure of one invocation is measured the same
way. ``--engines``: ``compiled`` is the C kernel of ``tw_rl.core.kernel`` (TW_RL_KERNEL=c),
``numpy`` its numpy reference (TW_RL_KERNEL=numpy). "end det." is the share of the time spent in the
territory simulation (with the compiled engine, the position's sight comes out of the same
pass and is counted there too); "masks" the share in the legal masks that pick the moves.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

import numpy as np

import tw_rl.core.rules as rules_module
from tw_rl.codecup import rules as scalar
from tw_rl.core.rules import Rules

ENGINES = {"compiled": "c", "numpy": "numpy"}
clock = time.process_time  # CPU seconds of this process (single-threaded work)
# The functions of tw_rl.core.rules that run territory simulations (the first exists in every
# version of the engine, so that the script also times an older checkout).
TIMED = ("simulate_territory", "sight_and_territory")


def batched_random_play(rules: Rules, batch: int, seed: int) -> dict:
    """Random games until every board is over; moves counted on live boards only."""
    rng = np.random.default_rng(seed)
    spent = {"territory": 0.0}

    def timed(fn):
        def call(*args, **kwargs):
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent["territory"] += clock() - t0

        return call

    originals = {name: getattr(rules_module, name) for name in TIMED if hasattr(rules_module, name)}
    for name, fn in originals.items():  # time the simulation where the rules call it
        setattr(rules_module, name, timed(fn))
    try:
        state = rules.init(batch, rng)
        moves, steps, legal_time = 0, 0, 0.0
        start = clock()
        while not state.terminated.all():
            t0 = clock()
            legal = rules.legal_mask(state)
            legal_time += clock() - t0
            keys = rng.random(legal.shape, dtype=np.float32)  # uniform among the legal actions
            np.multiply(keys, legal, out=keys)
            actions = keys.argmax(axis=1)
            moves += int((~state.terminated).sum())
            state = rules.step(state, actions)
            steps += 1
        elapsed = clock() - start
    finally:
        for name, fn in originals.items():
            setattr(rules_module, name, fn)
    return {
        "moves": moves,
        "seconds": elapsed,
        "moves_per_s": moves / elapsed,
        "batched_steps": steps,
        "mean_plies": float(state.ply.mean()),
        "share_end_detection": spent["territory"] / elapsed,
        "share_legal_masks": legal_time / elapsed,
    }


def scalar_random_play(size: int, variant: str, games: int, seed: int) -> dict:
    """The same random play, one game at a time, through the standard-library twin."""
    rng = random.Random(seed)
    board = scalar.Board(size)
    moves = 0
    start = clock()
    for _ in range(games):
        position = scalar.Position.start(board, *scalar.judge_start(board, rng), variant=variant)
        while not position.over:
            position.play(rng.choice(position.legal_moves()))
            moves += 1
    elapsed = clock() - start
    return {"games": games, "moves": moves, "seconds": elapsed, "moves_per_s": moves / elapsed}


def _ints(text: str, name: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"--{name} takes comma-separated integers, got {text!r}") from None
    if not values:
        raise SystemExit(f"--{name} is empty")
    return values


def _engines(text: str) -> list[str]:
    names = [x.strip() for x in text.split(",") if x.strip()]
    unknown = [x for x in names if x not in ENGINES]
    if unknown or not names:
        raise SystemExit(f"--engines takes {', '.join(ENGINES)} (comma-separated), got {text!r}")
    try:
        from tw_rl.core import kernel
    except ImportError:  # an older checkout: numpy only
        kernel = None
    if kernel is None:
        return ["numpy"]
    if "compiled" in names and not kernel.compiled_available():
        raise SystemExit(f"the compiled engine is unavailable here: {kernel.why_unavailable()}")
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", "--sizes", dest="sizes", default="6", help="board sizes, e.g. 6,8")
    parser.add_argument(
        "--batch", "--batches", dest="batches", default="1024", help="batch sizes, e.g. 64,1024"
    )
    parser.add_argument("--engines", default="compiled", help="compiled and/or numpy (comma-separated)")
    parser.add_argument("--variants", default="codecup,official", help="rule sets (comma-separated)")
    parser.add_argument("--scalar-games", type=int, default=200, help="scalar twin games per size and rules")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON line per row instead of a table")
    args = parser.parse_args(argv)
    sizes, batches = _ints(args.sizes, "sizes"), _ints(args.batches, "batches")
    if any(s not in (6, 8, 10, 11) for s in sizes):
        parser.error("--sizes must be among 6, 8, 10, 11")
    if any(b < 1 for b in batches) or args.scalar_games < 1:
        parser.error("batches and --scalar-games must be at least 1")
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if not variants or any(v not in ("codecup", "official") for v in variants):
        parser.error("--variants takes codecup and/or official")
    engines = _engines(args.engines)

    rows = []
    for size in sizes:
        for variant in variants:
            print(
                f"[{size} {variant}] scalar twin, {args.scalar_games} games ...", file=sys.stderr, flush=True
            )
            slow = scalar_random_play(size, variant, args.scalar_games, args.seed)
            for engine in engines:
                os.environ["TW_RL_KERNEL"] = ENGINES[engine]
                rules = Rules(size, variant, setup="judge")
                batched_random_play(rules, min(min(batches), 16), args.seed)  # warm-up (and build)
                for batch in batches:
                    print(f"[{size} {variant}] {engine}, {batch} boards ...", file=sys.stderr, flush=True)
                    fast = batched_random_play(rules, batch, args.seed)
                    rows.append(
                        {
                            "size": size,
                            "variant": variant,
                            "engine": engine,
                            "batch": batch,
                            "batched": fast,
                            "scalar": slow,
                            "ratio": fast["moves_per_s"] / slow["moves_per_s"],
                        }
                    )
    os.environ.pop("TW_RL_KERNEL", None)

    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    print(f"random play, seed {args.seed}; scalar twin: {args.scalar_games} games per size and rules")
    header = (
        "size",
        "rules",
        "engine",
        "batch",
        "batched moves/s",
        "scalar moves/s",
        "ratio",
        "end det.",
        "masks",
    )
    print("{:>4} {:<9} {:<9} {:>6} {:>16} {:>15} {:>7} {:>9} {:>7}".format(*header))
    for r in rows:
        b, s = r["batched"], r["scalar"]
        print(
            f"{r['size']:>4} {r['variant']:<9} {r['engine']:<9} {r['batch']:>6} {b['moves_per_s']:>16,.0f}"
            f" {s['moves_per_s']:>15,.0f} {r['ratio']:>6.1f}x {b['share_end_detection']:>8.0%}"
            f" {b['share_legal_masks']:>7.0%}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
