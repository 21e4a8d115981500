"""A new student against the previous one, both in the native bot, through the referee."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tw_rl.referee.match import run_match
from tw_rl.referee.process import Program


@dataclass
class Rating:
    """The new student's record against the previous one."""

    games: int
    win_rate: float  # wins plus half the draws, per game
    interval: tuple[float, float]  # Wilson 95%
    mean_points: float  # CodeCup points per game (the previous student's in ``previous_points``)
    previous_points: float


def rate(
    binary: Path,
    new: Path,
    previous: Path,
    *,
    games: int,
    sims: int,
    time_limit: float,
    jobs: int,
    seed: int,
    out: Path,
) -> Rating:
    """Play ``games`` games (openings drawn as the judge draws them, each played twice with colours
    swapped: ``run_match``'s pairs) between
    the bot with ``new`` and with ``previous`` at ``sims`` simulations a move; every game is kept
    in ``out`` (the referee's files)."""
    a = Program.parse("new", f"{binary} --weights {new} --sims {sims}")
    b = Program.parse("previous", f"{binary} --weights {previous} --sims {sims}")
    match = run_match(a, b, games=games, seed=seed, time_limit=time_limit, jobs=jobs, out_dir=out)
    stats = match.stats()
    mine = stats["new"]
    return Rating(mine.games, mine.win_rate, mine.interval, mine.mean_points, stats["previous"].mean_points)
