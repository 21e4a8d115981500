"""Benchmark the rules engines with random play: batched numpy vs the scalar twin.

Plays full random games on a batch of boards through the batched engine (legal masks and,
under CodeCup rules, the end detection after every move), then the same number of games one
at a time through the standard-library engine, and prints moves per second for each, the
ratio, and where the batched engine's time goes. Figures go in docs/results/.

    python scripts/bench_env.py                  # size 6, batch 1024
    python scripts/bench_env.py --size 8 --batch 256 --scalar-games 100
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

import numpy as np

from tw_rl.codecup import rules as scalar
from tw_rl.core import territory
from tw_rl.core.rules import Rules


def batched_random_play(rules: Rules, batch: int, seed: int) -> dict:
    """Random games until every board is over; moves counted on live boards only."""
    rng = np.random.default_rng(seed)
    spent = {"territory": 0.0}
    simulate = territory.simulate_territory

    def timed_simulation(*args, **kwargs):
        t0 = time.perf_counter()
        out = simulate(*args, **kwargs)
        spent["territory"] += time.perf_counter() - t0
        return out

    # Measure the end detection's share by timing the simulation where the rules call it.
    import tw_rl.core.rules as rules_module

    rules_module.simulate_territory = timed_simulation
    try:
        state = rules.init(batch, rng)
        moves, steps, legal_time = 0, 0, 0.0
        start = time.perf_counter()
        while not state.terminated.all():
            t0 = time.perf_counter()
            legal = rules.legal_mask(state)
            legal_time += time.perf_counter() - t0
            keys = rng.random(legal.shape, dtype=np.float32)  # uniform among the legal actions
            np.multiply(keys, legal, out=keys)
            actions = keys.argmax(axis=1)
            moves += int((~state.terminated).sum())
            state = rules.step(state, actions)
            steps += 1
        elapsed = time.perf_counter() - start
    finally:
        rules_module.simulate_territory = simulate
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
    start = time.perf_counter()
    for _ in range(games):
        position = scalar.Position.start(board, *scalar.judge_start(board, rng), variant=variant)
        while not position.over:
            position.play(rng.choice(position.legal_moves()))
            moves += 1
    elapsed = time.perf_counter() - start
    return {"moves": moves, "seconds": elapsed, "moves_per_s": moves / elapsed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=6, choices=(6, 8, 10, 11))
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--scalar-games", type=int, default=None, help="default: the batch size")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON line instead of a table")
    args = parser.parse_args(argv)
    if args.batch < 1:
        parser.error("--batch must be at least 1")
    scalar_games = args.batch if args.scalar_games is None else args.scalar_games

    results = {}
    for variant in ("codecup", "official"):
        rules = Rules(args.size, variant, setup="judge")
        batched_random_play(rules, min(args.batch, 16), args.seed)  # warm-up
        print(f"[{variant}] batched engine, {args.batch} boards ...", file=sys.stderr, flush=True)
        fast = batched_random_play(rules, args.batch, args.seed)
        print(f"[{variant}] scalar twin, {scalar_games} games ...", file=sys.stderr, flush=True)
        slow = scalar_random_play(args.size, variant, scalar_games, args.seed)
        results[variant] = {
            "batched": fast,
            "scalar": slow,
            "ratio": fast["moves_per_s"] / slow["moves_per_s"],
        }

    if args.json:
        print(json.dumps({"size": args.size, "batch": args.batch, **results}))
        return 0
    print(f"random play, {args.size} cells per side, batch {args.batch}, seed {args.seed}")
    header = ("rules", "batched moves/s", "scalar moves/s", "ratio", "end det.", "masks")
    print("{:<9} {:>16} {:>15} {:>7} {:>9} {:>7}".format(*header))
    for variant, r in results.items():
        b, s = r["batched"], r["scalar"]
        print(
            f"{variant:<9} {b['moves_per_s']:>16,.0f} {s['moves_per_s']:>15,.0f} {r['ratio']:>6.1f}x"
            f" {b['share_end_detection']:>8.0%} {b['share_legal_masks']:>7.0%}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
