"""How much pairing openings narrows a match's score: repeated matches against unpaired series.

    python scripts/pairing_spread.py tw_rl/training/teacher-default.pt tw_rl/training/teacher-ref-g099.pt \
        --games 40 --repeats 6 --sims 8 --threads 1

Plays ``--repeats`` series of ``--games`` games between two in-process players (checkpoint
files or the player language: ``random``, ``greedy``, ``mcts@N``, ...) in two ways, each series
with its own seed: paired, as every match of the project is played (``tw_rl.training.match
.play_match``: each opening twice, colours swapped), and unpaired (not a match), as games were
played before 2026-12-07 (every game its own opening, colours alternating, so colours are balanced but
openings are not). Reports each series' score, the mean and the standard deviation of the
scores across the repeats for each way, the ratio of the two deviations, and how often red won
(the first mover's edge, which pairing cancels inside each opening). One JSON line on stdout;
the table on stderr.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np
import torch

from tw_rl.core.hexgrid import SIZES
from tw_rl.core.rules import Rules
from tw_rl.rating.head_to_head import named_player
from tw_rl.rating.kinds import RatingError
from tw_rl.training.match import MatchScore, Slot, even_games, match_score, play_batch, play_match


def unpaired_series(rules: Rules, a, b, games: int, rng: np.random.Generator) -> MatchScore:
    """``games`` games, each on its own judge-drawn opening, A red in the even ones."""
    red, white = rules.draw_starts(games, rng)
    slots = [
        Slot(*(("A", "B") if k % 2 == 0 else ("B", "A")), int(red[k]), int(white[k]), k) for k in range(games)
    ]
    return match_score(play_batch(rules, {"A": a, "B": b}, slots, rng), "A")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("player", help="checkpoint path or an in-process player of the player language")
    parser.add_argument("opponent", help="checkpoint path or an in-process player of the player language")
    parser.add_argument("--games", type=int, default=40, help="games per match (even: whole openings)")
    parser.add_argument("--repeats", type=int, default=6, help="matches of each way (two or more)")
    parser.add_argument("--sims", type=int, default=8, help="simulations per move of checkpoint players")
    parser.add_argument("--size", type=int, default=6, choices=SIZES)
    parser.add_argument("--seed", type=int, default=0, help="match k of either way plays with seed + k")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (0 = torch's default)")
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2 or args.repeats < 2:
        parser.error("--games must be even and at least 2, --repeats at least 2")
    if args.threads:
        torch.set_num_threads(args.threads)
    rules = Rules(args.size)
    try:
        a = named_player(args.player, rules, args.sims)
        b = named_player(args.opponent, rules, args.sims)
    except RatingError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    assert even_games(args.games) == args.games
    report: dict = {"player": args.player, "opponent": args.opponent, **vars(args)}
    start = time.perf_counter()
    for way, play in (("paired", play_match), ("unpaired", unpaired_series)):
        scores, total = [], MatchScore()
        for k in range(args.repeats):
            result = play(rules, a, b, args.games, np.random.default_rng([args.seed + k, 7]))
            scores.append(result.score)
            total += result
            print(f"{way} match {k + 1}/{args.repeats}: {result.line()}", file=sys.stderr)
        report[way] = {
            "scores": scores,
            "mean": statistics.fmean(scores),
            "stdev": statistics.stdev(scores),
            "pooled": total.to_json(),
        }
    report["stdev_ratio_paired_to_unpaired"] = report["paired"]["stdev"] / max(
        report["unpaired"]["stdev"], 1e-12
    )
    report["seconds"] = round(time.perf_counter() - start, 1)
    for way in ("paired", "unpaired"):
        r = report[way]
        red = r["pooled"]["red_won"] / r["pooled"]["games"]
        print(
            f"{way:>9}: mean {100 * r['mean']:.1f}%, standard deviation {100 * r['stdev']:.1f} points "
            f"over {args.repeats} matches of {args.games} games; red won {100 * red:.1f}%",
            file=sys.stderr,
        )
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
