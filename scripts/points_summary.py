"""The CodeCup's points of a referee match, program A's side: what a search for points is judged by.

    tw-rl referee "./bot --time 3 --utility points" "./bot --time 3" --games 60 --time 3 --out m
    python scripts/points_summary.py m            # one Markdown row; --header adds the table's head
    python scripts/points_summary.py m1 m2 --pool both   # one row over both matches' games

From the match's ``results.jsonl`` (``tw-rl referee``: pairs of games share a judge-drawn start,
colours swapped), program A's score (wins + draws / 2) with its 95% Wilson interval, its wins
as red and as white, its points a game (winner 200 + cells, loser 100 + cells, as the judge
gives them) and B's, the difference A - B a game with the 95% Student t interval over the
pairs of games that share a start (the pair is the unit: its two games are not independent),
A's mean cell margin in the games it won and in those it lost, and in all its games as red
and as white (the white games decide a tournament of the 6-board), the faults, and the largest
thinking time either program spent in a game. ``--pool NAME`` sums several matches of the
same two programs (the same commands; their starts kept apart) into one row.
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


def read_games(folder: Path) -> list[dict]:
    path = folder / "results.jsonl"
    try:
        games = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except OSError as err:
        raise SystemExit(f"points_summary: cannot read {path}: {err.strerror or err}") from None
    if not games:
        raise SystemExit(f"points_summary: no games in {path}")
    return games


def start_of(game: dict) -> object:
    """The judge-drawn start a game shares with its twin (older files: by the game's number)."""
    return game.get("opening", (game["game"] - 1) // 2)


def commands(game: dict) -> dict[str, str | None]:
    """Program A's and B's command lines in a game (None where the file does not say)."""
    by_program = {game[c]["program"]: game[c].get("command") for c in ("red", "white")}
    return {"A": by_program.get("A"), "B": by_program.get("B")}


def pooled_games(folders: list[Path]) -> list[dict]:
    """Every game of the matches, each start made unique to its match; the programs must agree."""
    if len({f.resolve() for f in folders}) < len(folders):
        raise SystemExit("points_summary: a folder is named twice: its games would count twice")
    games: list[dict] = []
    first: dict[str, str | None] | None = None
    for index, folder in enumerate(folders):
        for g in read_games(folder):
            if first is None:
                first = commands(g)
            elif commands(g) != first:
                raise SystemExit(
                    f"points_summary: {folder} plays {commands(g)}, not {first}: "
                    "only matches of the same two programs pool"
                )
            games.append({**g, "opening": (index, start_of(g))})
    return games


def summary_row(games: list[dict], name: str) -> str:
    """One Markdown row, titled ``name``, for a match's games (``read_games`` or ``pooled_games``)."""
    score = wins_red = wins_white = faults = 0
    points = {"A": 0, "B": 0}
    won, lost = [], []
    by_colour: dict[str, list[int]] = {"red": [], "white": []}  # A's margin in each game
    slowest = 0.0
    pairs: dict[object, list[int]] = {}  # start -> A's points minus B's in each of its games
    for g in games:
        difference = g["program_points"]["A"] - g["program_points"]["B"]
        pairs.setdefault(start_of(g), []).append(difference)
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
        f"| {name} | {n} | {score:g}/{n} = {score / n:.1%} [{lo:.1%}, {hi:.1%}] "
        f"| {wins_red}, {wins_white} | {points['A'] / n:.1f} | {points['B'] / n:.1f} "
        f"| {paired_difference(pairs)} | {mean(won)}, {mean(lost)} "
        f"| {mean(by_colour['red'])}, {mean(by_colour['white'])} | {faults} | {slowest:.2f} s |"
    )


def paired_difference(pairs: dict) -> str:
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
    parser.add_argument("--pool", metavar="NAME", help="one row named NAME over all the folders' games")
    args = parser.parse_args(argv)
    if args.header:
        print(HEADER)
    if args.pool:
        print(summary_row(pooled_games(args.folders), args.pool))
        return 0
    for folder in args.folders:
        print(summary_row(read_games(folder), folder.name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
