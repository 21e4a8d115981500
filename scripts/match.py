"""Play a checkpoint against a baseline (or another checkpoint) and report the score with a 95% CI.

    python scripts/match.py runs/X/checkpoints/ckpt-g000012.pt greedy --games 100 --sims 64
    python scripts/match.py runs/X/checkpoints/ckpt-g000012.pt random --games 100 --raw

A player is ``random``, ``greedy`` or a checkpoint path; ``--raw`` makes the checkpoint play its
policy's best move without search. Colours alternate; draws count half. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from tw_rl.core.baselines import BASELINES  # noqa: E402
from tw_rl.core.mcts import SearchConfig  # noqa: E402
from tw_rl.core.rules import Rules  # noqa: E402
from tw_rl.referee import wilson_interval  # noqa: E402
from tw_rl.training.learner import CheckpointError, load_checkpoint, net_from_checkpoint  # noqa: E402
from tw_rl.training.match import play_match, raw_policy_player, search_player  # noqa: E402
from tw_rl.training.net import NetPolicyValue  # noqa: E402


def make_player(name: str, rules: Rules, sims: int, raw: bool):
    if name in BASELINES:
        return BASELINES[name]
    payload = load_checkpoint(Path(name))
    if int(payload["size"]) != rules.grid.size:
        raise CheckpointError(f"{name} is for board size {payload['size']}, not {rules.grid.size}")
    policy_value = NetPolicyValue(net_from_checkpoint(payload), rules)
    return (
        raw_policy_player(policy_value)
        if raw
        else search_player(policy_value, SearchConfig(simulations=sims))
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("player", help="checkpoint path, random or greedy")
    parser.add_argument("opponent", help="checkpoint path, random or greedy")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--sims", type=int, default=64, help="simulations per move of checkpoint players")
    parser.add_argument(
        "--raw", action="store_true", help="the first player plays its raw policy (no search)"
    )
    parser.add_argument("--size", type=int, default=6, choices=(6, 8, 10, 11))
    parser.add_argument("--batch", type=int, default=50, help="games played at once")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    rules = Rules(args.size)
    try:
        player = make_player(args.player, rules, args.sims, args.raw)
        opponent = make_player(args.opponent, rules, args.sims, False)
    except CheckpointError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    wins = draws = losses = 0
    start = time.perf_counter()
    for first in range(0, args.games, args.batch):
        count = min(args.batch, args.games - first)
        result = play_match(rules, player, opponent, count, rng)
        wins, draws, losses = wins + result.wins, draws + result.draws, losses + result.losses
        print(
            f"{wins + draws + losses}/{args.games} games: {wins} won, {draws} drawn, {losses} lost",
            file=sys.stderr,
        )
    games = wins + draws + losses
    score = (wins + 0.5 * draws) / games
    low, high = wilson_interval(wins + 0.5 * draws, games)
    report = {
        "player": args.player,
        "opponent": args.opponent,
        "raw": args.raw,
        "sims": args.sims,
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": score,
        "ci95": [round(low, 3), round(high, 3)],
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
