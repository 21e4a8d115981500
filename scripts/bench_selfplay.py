"""Benchmark self-play: positions and MCTS simulations per second, and where the time goes.

Runs the batched search with a freshly initialised network (default: the ``small`` preset) on
``--batch`` games at once, for ``--moves`` moves of every game, with ``--sims`` simulations
per move, and splits the time into the network (encoding + forward pass), the rules (moves and
legal masks), the end detection (territory simulations) and the tree bookkeeping (the rest).
Each precision in ``--precision`` runs the same games, so the old (float32) and the new path
are compared side by side in one invocation.

    python scripts/bench_selfplay.py                     # small net, batch 256, 64 sims; float32 vs auto
    python scripts/bench_selfplay.py --precision float32,bfloat16 --threads 1
    python scripts/bench_selfplay.py --net tiny --batch 64 --sims 32
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

import tw_rl.core.rules as rules_module
from tw_rl.config import group_option
from tw_rl.core.mcts import BatchedMCTS, SearchConfig
from tw_rl.core.rules import Rules
from tw_rl.training.net import PRECISIONS, NetPolicyValue, build_net, resolve_device

CONFIGS = Path(__file__).resolve().parents[1] / "configs"  # the net presets: configs/net/*.yaml


class Timer:
    """Wraps callables and adds up the seconds spent inside them."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def wrap(self, name: str, fn):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

        return timed


def measure(args: argparse.Namespace, precision: str) -> dict:
    """One timed self-play run with forward passes in ``precision``; the report as a dict."""
    device = resolve_device(args.device)
    rules = Rules(args.size)
    torch.manual_seed(args.seed)
    net = build_net(group_option("net", args.net, CONFIGS), args.size).to(device)
    policy_value = NetPolicyValue(net, rules, device, precision=precision)
    rng = np.random.default_rng(args.seed)
    mcts = BatchedMCTS(rules, SearchConfig(simulations=args.sims))

    timer = Timer()
    network = timer.wrap("network", policy_value)
    original_step, original_mask = Rules.step, Rules.legal_mask
    original_territory = rules_module.simulate_territory
    Rules.step = timer.wrap("rules", original_step)
    Rules.legal_mask = timer.wrap("legal masks", original_mask)
    rules_module.simulate_territory = timer.wrap("end detection", original_territory)
    try:
        state = rules.init(args.batch, rng)
        mcts.search(state[: min(8, args.batch)], network, rng, simulations=2)  # warm-up
        timer.seconds.clear()
        start = time.perf_counter()
        positions = 0
        for move in range(args.moves):
            result = mcts.search(state, network, rng)
            positions += int((~state.terminated).sum())
            state = original_step(rules, state, BatchedMCTS.sample_action(result, 1.0, rng))
            print(f"{precision}: move {move + 1}/{args.moves}", file=sys.stderr, flush=True)
        elapsed = time.perf_counter() - start
    finally:
        Rules.step, Rules.legal_mask = original_step, original_mask
        rules_module.simulate_territory = original_territory

    simulations = positions * args.sims
    shares = dict(timer.seconds)
    # rules.step includes the end detection; report them apart.
    shares["rules"] = shares.get("rules", 0.0) - shares.get("end detection", 0.0)
    # The network call computes legal masks for its encoding too; those count as network.
    shares["tree bookkeeping"] = elapsed - sum(shares.values())
    return {
        "net": args.net,
        "device": str(device),
        "precision": precision,
        "dtype": str(policy_value.dtype).removeprefix("torch."),
        "threads": torch.get_num_threads(),
        "batch": args.batch,
        "sims": args.sims,
        "positions_per_s": positions / elapsed,
        "simulations_per_s": simulations / elapsed,
        "network_evaluations_per_s": policy_value.evaluations / elapsed,
        "share": {k: round(v / elapsed, 3) for k, v in sorted(shares.items(), key=lambda kv: -kv[1])},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    nets = sorted(p.stem for p in (CONFIGS / "net").glob("*.yaml"))
    parser.add_argument("--net", default="small", choices=nets)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--sims", type=int, default=64)
    parser.add_argument("--moves", type=int, default=6, help="moves played in every game")
    parser.add_argument("--size", type=int, default=6, choices=(6, 8, 10, 11))
    parser.add_argument("--device", default="auto")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--precision",
        default="float32,auto",
        help="comma-separated forward-pass precisions, run one after the other on the same games "
        "(float32 = the 0.1 path; auto = bfloat16 where the hardware has it)",
    )
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    precisions = args.precision.split(",")
    for precision in precisions:
        if precision not in PRECISIONS:
            parser.error(f"--precision: {precision!r} is not one of {', '.join(PRECISIONS)}")
    reports = [measure(args, precision) for precision in precisions]
    for report in reports:
        print(json.dumps(report))
    base = reports[0]["simulations_per_s"]
    header = ("precision", "dtype", "simulations/s", "positions/s", "vs first")
    print("{:<10} {:<9} {:>14} {:>12} {:>9}  network share".format(*header))
    for r in reports:
        print(
            f"{r['precision']:<10} {r['dtype']:<9} {r['simulations_per_s']:>14,.0f} "
            f"{r['positions_per_s']:>12,.1f} "
            f"{r['simulations_per_s'] / base:>8.2f}x  {r['share'].get('network', 0):.0%}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
