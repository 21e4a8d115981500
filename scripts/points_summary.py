"""The CodeCup's points of a referee match, program A's side: what a search for points is judged by.

    tw-rl referee "./bot --time 3 --utility points" "./bot --time 3" --games 60 --time 3 --out m
    python scripts/points_summary.py m            # one Markdown row; --header adds the table's head

From the match's ``results.jsonl`` (``tw-rl referee``: pairs of games share a judge-drawn start,
colours swapped), program A's score (wins + draws / 2) with its 95% Wilson interval, its wins
as red and as white, its points a game (winner 200 + cells, loser 100 + cells, as the judge
gives them) and B's, the difference A - B a game with the 95% Student t interval over the
pairs of games that share a start (the pair is the unit: its two games are not independent),
A's mean cell margin in the games it won and in those it lost, and in all its games as red
and as white (the white games decide a tournament of the 6-board), the faults, and the largest
thinking time either program spent in a game.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from tw_rl.stats import runs_interval, wilson_interval

HEADER = (
    "| match | games | A's score [95% CI] | A wins as red, white | A points/game | B points/game "
    "| A - B points/game [95% CI over pairs] | A's margin won, lost | A's margin as red, white | faults "
    "| largest time a game (A or B) |"
    "\n|---|---|---|---|---|---|---|---|---|---|---|"
)


def summary_row(folder: Path) -> str:
    path = folder / "results.jsonl"
    try:
        games = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except OSError as err:
        raise SystemExit(f"points_summary: cannot read {path}: {err.strerror or err}") from None
    if not games:
        raise SystemExit(f"points_summary: no games in {path}")
    score = wins_red = wins_white = faults = 0
    points = {"A": 0, "B": 0}
    won, lost = [], []
    by_colour: dict[str, list[int]] = {"red": [], "white": []}  # A's margin in each game
    slowest = 0.0
    pairs: dict[int, list[int]] = {}  # start -> A's points minus B's in each of its games
    for g in games:
        difference = g["program_points"]["A"] - g["program_points"]["B"]
        pairs.setdefault(g.get("opening", (g["game"] - 1) // 2), []).append(difference)
        a_colour = "red" if g["red"]["program"] == "A" else "white"
        b_colour = "white" if a_colour == "red" else "red"
        points["A"] += g["program_points"]["A"]
        points["B"] += g["program_points"]["B"]
        faults += g["fault"] is not None
        slowest = max(slowest, *g["thinking"].values())
        cells = {c: g["points"][c] - (200 if g.get("winner_colour") == c else 100) for c in ("red", "white")}
        margin = cells[a_colour] - cells[b_colour]  # (a faulted game's margin is not the board's)
        by_colour[a_colour].append(margin)
        if g["winner"] == "A":
            score += 1
            wins_red += a_colour == "red"
            wins_white += a_colour == "white"
            won.append(margin)
        elif g["winner"] == "B":
            lost.append(margin)
        else:
            score += 0.5
    n = len(games)
    lo, hi = wilson_interval(score, n)

    def mean(xs):
        return f"{sum(xs) / len(xs):+.1f}" if xs else "-"

    return (
        f"| {folder.name} | {n} | {score:g}/{n} = {score / n:.1%} [{lo:.1%}, {hi:.1%}] "
        f"| {wins_red}, {wins_white} | {points['A'] / n:.1f} | {points['B'] / n:.1f} "
        f"| {paired_difference(pairs)} | {mean(won)}, {mean(lost)} "
        f"| {mean(by_colour['red'])}, {mean(by_colour['white'])} | {faults} | {slowest:.2f} s |"
    )


def paired_difference(pairs: dict[int, list[int]]) -> str:
    """A's points minus B's a game, its mean over the starts and the 95% t interval."""
    per_start = [sum(d) / len(d) for d in pairs.values()]
    if len(per_start) < 2:
        return f"{per_start[0]:+.1f}"
    diff = runs_interval(per_start, bounds=(-math.inf, math.inf))
    return f"{diff.mean:+.1f} [{diff.low:+.1f}, {diff.high:+.1f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="results folders of tw-rl referee")
    parser.add_argument("--header", action="store_true", help="print the table's head first")
    args = parser.parse_args(argv)
    if args.header:
        print(HEADER)
    for folder in args.folders:
        print(summary_row(folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
