"""What a search makes of a network's positions: the training targets of several search settings.

    python scripts/search_targets.py --shards runs/X/selfplay \\
        --arm root=puct --arm "root=puct forced_playouts=2" --arm root=gumbel

For each arm (``SearchConfig`` fields as ``field=value``, on top of ``--sims`` and the self-play
root noise) the checkpoint (default: the shipped teacher) searches the same positions, the
newest fully searched ones of a shard folder (or, without ``--shards``, positions of random play),
and the report gives, averaged over the positions: the root children the search visited, the
children the training target keeps, the target's largest share and its entropy (nats), and the
search's simulations a second. Prints a Markdown table (one JSON line each with ``--json``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from tw_rl.core.baselines import random_actions
from tw_rl.core.mcts import BatchedMCTS, SearchConfig
from tw_rl.core.rules import Rules
from tw_rl.training.checkpoint import (
    CheckpointError,
    load_checkpoint,
    net_from_checkpoint,
    resolve_checkpoint,
)
from tw_rl.training.net import NetPolicyValue
from tw_rl.training.replay_buffer import ReplayWindow


def parse_arm(text: str) -> dict:
    """``"root=puct forced_playouts=2"`` as typed ``SearchConfig`` fields; ValueError names a bad one."""
    fields = {f.name: f for f in dataclasses.fields(SearchConfig)}
    defaults = SearchConfig()
    arm = {}
    for part in text.split():
        name, _, value = part.partition("=")
        if name not in fields or not value:
            raise ValueError(
                f"--arm {text!r}: {part!r} is not FIELD=VALUE of a search field ({', '.join(fields)})"
            )
        kind = type(getattr(defaults, name))
        try:
            if kind is bool:
                arm[name] = {"true": True, "false": False}[value.lower()]
            else:
                arm[name] = kind(float(value)) if kind is int else kind(value)
        except (KeyError, ValueError):
            raise ValueError(f"--arm {text!r}: {name} takes a {kind.__name__}, not {value!r}") from None
    return arm


def positions(rules: Rules, shards: Path | None, count: int, rng: np.random.Generator):
    """The newest ``count`` stored positions of a shard folder, or ``count`` of random play."""
    if shards is not None:
        window = ReplayWindow(shards, count, size=rules.size)
        if window.refresh() == 0:
            raise ValueError(f"{shards}: no readable shard of board size {rules.size}")
        samples = window.sample(count, rng)
        return rules.position(samples.owner, samples.height, samples.to_move, samples.passes)
    state = rules.init(count, rng)
    for _ in range(20):
        state = rules.step(state, random_actions(rules, state, rng))
    return state[~state.terminated]


def measure(rules: Rules, policy_value, state, arm: dict, sims: int, seed: int) -> dict:
    config = SearchConfig(simulations=sims, **arm)
    search = BatchedMCTS(rules, config)
    start = time.perf_counter()
    result = search.search(state, policy_value, np.random.default_rng(seed), noise=True)
    seconds = time.perf_counter() - start
    policy = result.policy.astype(np.float64)
    entropy = -np.where(policy > 0, policy * np.log(np.maximum(policy, 1e-12)), 0.0).sum(axis=1)
    return {
        "arm": " ".join(f"{k}={v}" for k, v in arm.items()) or "(defaults)",
        "positions": int(state.batch_size),
        "simulations": sims,
        "children_visited": float((result.visits > 0).sum(axis=1).mean()),
        "target_children": float((result.policy > 0).sum(axis=1).mean()),
        "target_top_share": float(policy.max(axis=1).mean()),
        "target_entropy": float(entropy.mean()),
        "simulations_per_s": round(sims * state.batch_size / seconds, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--checkpoint", default="default", help="a checkpoint path, or default (the shipped one)"
    )
    parser.add_argument("--shards", type=Path, default=None, help="a shard folder to take positions from")
    parser.add_argument("--positions", type=int, default=128)
    parser.add_argument("--sims", type=int, default=32, help="simulations of each search")
    parser.add_argument("--arm", action="append", default=[], help="search fields, e.g. 'root=puct c_puct=2'")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="one JSON line per arm instead of a table")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    try:
        arms = [parse_arm(text) for text in (args.arm or ["root=puct", "root=gumbel"])]
        for arm in arms:
            BatchedMCTS(Rules(6), SearchConfig(**arm))  # refuses a bad combination before any work
        payload = load_checkpoint(resolve_checkpoint(args.checkpoint))
        rules = Rules(int(payload["size"]))
        state = positions(rules, args.shards, args.positions, np.random.default_rng(args.seed))
    except (ValueError, CheckpointError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    policy_value = NetPolicyValue(net_from_checkpoint(payload), rules)
    rows = [measure(rules, policy_value, state, arm, args.sims, args.seed + 1) for arm in arms]
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    print("| search | positions | children visited | target keeps | target's top share | entropy | sims/s |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| `{r['arm']}` | {r['positions']} | {r['children_visited']:.1f} | {r['target_children']:.1f} | "
            f"{r['target_top_share']:.3f} | {r['target_entropy']:.2f} | {r['simulations_per_s']:,.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
