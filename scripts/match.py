"""Play a checkpoint against a baseline (or another checkpoint) and report the score with a 95% CI.

    python scripts/match.py runs/X/checkpoints/ckpt-g000012.pt greedy --games 100 --sims 64
    python scripts/match.py runs/X/checkpoints/ckpt-g000012.pt random --games 100 --raw

A player is ``random``, ``greedy`` or a checkpoint path; ``--raw`` makes the checkpoint play its
policy's best move without search. Each opening is played twice with colours swapped (an odd
``--games`` is rounded up, with a note); draws count half. Prints the progress and the summary
line on stderr (record, win rate with its 95% Wilson interval, record as red and as white, CodeCup
points per game) and one JSON line on stdout (``MatchScore.to_json`` and the settings).
The front end of ``tw_rl.rating.head_to_head``; the defaults are ``tw_rl.config.HeadToHeadConfig``'s.
"""

from __future__ import annotations

import argparse
import json
import sys

from tw_rl.config import HeadToHeadConfig
from tw_rl.core.hexgrid import SIZES
from tw_rl.rating.head_to_head import head_to_head
from tw_rl.rating.player_specs import RatingError


def main(argv: list[str] | None = None) -> int:
    defaults = HeadToHeadConfig()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("player", help="checkpoint path, random or greedy")
    parser.add_argument("opponent", help="checkpoint path, random or greedy")
    parser.add_argument("--games", type=int, default=defaults.games, help="games (whole openings: even)")
    parser.add_argument(
        "--sims", type=int, default=defaults.simulations, help="simulations per move of checkpoint players"
    )
    parser.add_argument(
        "--raw", action="store_true", help="the first player plays its raw policy (no search)"
    )
    parser.add_argument("--size", type=int, default=defaults.size, choices=SIZES)
    parser.add_argument("--batch", type=int, default=defaults.batch, help="games played at once")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--threads", type=int, default=defaults.threads)
    args = parser.parse_args(argv)
    cfg = HeadToHeadConfig(
        player=args.player,
        opponent=args.opponent,
        games=args.games,
        simulations=args.sims,
        raw=args.raw,
        size=args.size,
        batch=args.batch,
        seed=args.seed,
        threads=args.threads,
    )
    try:
        report = head_to_head(cfg, log=lambda line: print(line, file=sys.stderr))
    except RatingError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
