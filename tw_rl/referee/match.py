"""A match: pairs of refereed games between two programs, their records, figures and table.

``run_match`` plays pairs of games on one judge-drawn opening each, with colours swapped inside
the pair (A is red in games 1, 3, 5, ...), optionally with parallel games; it writes each
finished game atomically as a record with a JSON summary, appends it to ``results.jsonl``, and
ends with ``summary.json``. Win rates come with a 95% Wilson score interval (``tw_rl.stats``).
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from tqdm import tqdm

from tw_rl.codecup.clock import DEFAULT_BUDGET
from tw_rl.core.hexgrid import SIZES, hexgrid
from tw_rl.core.notation import NOTATIONS, cell_name, format_record
from tw_rl.core.rules import Rules
from tw_rl.core.state import COLOUR_NAMES, RED, WHITE
from tw_rl.files import write_atomic
from tw_rl.referee.game import GameResult, draw_opening, play_game
from tw_rl.referee.process import POLL_S, Cancel, MatchInterrupted, Program, RefereeError
from tw_rl.stats import wilson_interval

GAME_FILE = "game-{:05d}.txt"
T = TypeVar("T")


@dataclass
class ProgramStats:
    """One program's record over a match."""

    name: str
    command: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: dict[str, int] = field(default_factory=dict)  # kind -> count, its own faults only
    points: int = 0
    slowest_move: tuple[float, int, int] = (0.0, 0, -1)  # (seconds, game, ply)
    slowest_game: tuple[float, int] = (0.0, 0)  # (thinking seconds, game)
    peak_memory: tuple[int, int] = (0, 0)  # (max RSS in KiB, game)

    @property
    def mean_points(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def win_rate(self) -> float:
        """Wins plus half the draws, per game."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins + 0.5 * self.draws, self.games)

    def to_json(self) -> dict:
        low, high = self.interval
        return {
            "command": self.command,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "faults": dict(self.faults),
            "mean_points": round(self.mean_points, 3),
            "win_rate": round(self.win_rate, 4),
            "win_rate_95": [round(low, 4), round(high, 4)],
            "slowest_move": {
                "seconds": round(self.slowest_move[0], 4),
                "game": self.slowest_move[1],
                "ply": self.slowest_move[2],
            },
            "slowest_game": {"seconds": round(self.slowest_game[0], 4), "game": self.slowest_game[1]},
            "peak_memory": {"mib": round(self.peak_memory[0] / 1024, 1), "game": self.peak_memory[1]},
        }


@dataclass
class MatchResult:
    """The finished games of a match (by game number, from 1) and its settings."""

    programs: tuple[Program, Program]
    settings: dict
    games: dict[int, GameResult]
    out_dir: Path | None = None
    interrupted: bool = False

    def stats(self) -> dict[str, ProgramStats]:
        stats = {p.name: ProgramStats(p.name, p.command) for p in self.programs}
        for number, game in sorted(self.games.items()):
            for colour in (RED, WHITE):
                s = stats[game.program(colour).name]
                i = colour - 1
                s.games += 1
                s.points += game.points[i]
                if game.winner == 0:
                    s.draws += 1
                elif game.winner == colour:
                    s.wins += 1
                else:
                    s.losses += 1
                if game.fault is not None and game.fault.colour == colour:
                    s.faults[game.fault.kind] = s.faults.get(game.fault.kind, 0) + 1
                seconds, ply = game.slowest[i]
                s.slowest_move = max(s.slowest_move, (seconds, number, ply), key=lambda m: m[0])
                s.slowest_game = max(s.slowest_game, (game.thinking[i], number), key=lambda m: m[0])
                s.peak_memory = max(s.peak_memory, (game.max_rss_kib[i], number), key=lambda m: m[0])
        return stats

    def crash_hint(self) -> str | None:
        """A hint when every game ended with a program crashing before its first move."""
        if not self.games:
            return None
        first = {}
        for game in self.games.values():
            fault = game.fault
            if fault is None or fault.kind != "crash" or fault.ply != fault.colour - 1:
                return None
            first.setdefault(game.program(fault.colour).name, fault.detail)
        names = " and ".join(sorted(first))
        details = "; ".join(f"{name}: {detail}" for name, detail in sorted(first.items()))
        where = f" (stderr logs in {self.out_dir / 'stderr'})" if self.out_dir else ""
        return (
            f"every game ended with {names} crashing before its first move ({details}){where}. "
            "Check that the command runs from this folder: start it by hand and type "
            "a start cell, another start cell and Start."
        )


def by_colour(red, white) -> dict:
    """A JSON object with one entry per colour, keyed by the colour's word (red first)."""
    return {COLOUR_NAMES[RED]: red, COLOUR_NAMES[WHITE]: white}


def colour_pair(entry: dict) -> tuple:
    """The (red, white) values of a ``by_colour`` object."""
    return entry[COLOUR_NAMES[RED]], entry[COLOUR_NAMES[WHITE]]


def game_summary(number: int, game: GameResult, seed: int, notation: str = "diff") -> dict:
    """The JSON summary of one game of a match (the last line of its record, a results line)."""
    grid = hexgrid(game.size)
    names = {RED: game.red.name, WHITE: game.white.name}
    fault = None
    if game.fault is not None:
        f = game.fault
        fault = {
            "kind": f.kind,
            "colour": COLOUR_NAMES[f.colour],
            "program": names[f.colour],
            "ply": f.ply,
            "answer": f.answer,
            "detail": f.detail,
        }
    return {
        "game": number,
        "seed": seed,
        "opening": (number - 1) // 2,
        "size": game.size,
        **by_colour(
            *({"program": p.name, "command": p.command, "sha256": p.sha256} for p in (game.red, game.white))
        ),
        "start": by_colour(*(cell_name(grid, cell, notation) for cell in (game.red_start, game.white_start))),
        "winner": names.get(game.winner, "draw"),
        "winner_colour": COLOUR_NAMES.get(game.winner),
        "end": game.end,
        "points": by_colour(*game.points),
        "program_points": {names[RED]: game.points[0], names[WHITE]: game.points[1]},
        "fault": fault,
        "clock": by_colour(*game.clocks),
        "thinking": by_colour(*(round(seconds, 4) for seconds in game.thinking)),
        "slowest": by_colour(*({"seconds": round(seconds, 4), "ply": ply} for seconds, ply in game.slowest)),
        "max_rss_kib": by_colour(*game.max_rss_kib),
        "plies": len(game.moves),
    }


def game_record(number: int, game: GameResult, seed: int, notation: str = "diff") -> str:
    """The record of a game (the ``tw-rl analyze`` format), a fault comment, the JSON summary."""
    grid = hexgrid(game.size)
    text = format_record(grid, game.red_start, game.white_start, game.moves, notation)
    if game.fault is not None:
        text += f"# fault at {game.fault.describe(game.program(game.fault.colour))}\n"
    return text + "# " + json.dumps(game_summary(number, game, seed, notation)) + "\n"


def prepare_out_dir(out_dir: Path) -> None:
    """Create the results folder; RefereeError if it cannot be made or already holds results."""
    if out_dir.exists() and not out_dir.is_dir():
        raise RefereeError(f"--out {out_dir} exists and is not a folder")
    if out_dir.is_dir():
        results = ("results.jsonl", "summary.json")
        taken = sorted(p.name for p in out_dir.iterdir() if p.name.startswith("game-") or p.name in results)
        if taken:
            raise RefereeError(f"{out_dir} already holds results ({taken[0]}, ...); choose another --out")
    try:
        (out_dir / "stderr").mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise RefereeError(f"cannot create {out_dir}: {err.strerror or err}") from None


def _progress_text(stats: dict[str, ProgramStats]) -> str:
    return " ".join(f"{s.name} {s.wins}-{s.draws}-{s.losses}" for s in stats.values())


def play_parallel(
    games: Iterable[Callable[[], T]],
    jobs: int,
    cancel: Cancel,
    finished: Callable[[T], None],
    thread_name: str = "referee-game",
) -> None:
    """Play refereed games ``jobs`` at once (each a call that plays one), handing each result to
    ``finished`` as it ends.

    Any exception, Ctrl-C included, sets ``cancel`` (which kills every program in play) and is
    raised again once the threads have stopped; a game that finished meanwhile is still handed
    over, a game the cancel stopped (MatchInterrupted) is dropped.
    """
    executor = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix=thread_name)
    futures: list[Future] = []
    handed: set[Future] = set()

    def hand(future: Future) -> None:
        handed.add(future)
        finished(future.result())

    try:
        futures = [executor.submit(game) for game in games]
        pending = set(futures)
        while pending:
            # A wait with a timeout, not one without: Ctrl-C is handled by the main thread only
            # when it runs, and the kernel may deliver the signal to a game's thread instead.
            done, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
            for future in (f for f in futures if f in done):
                try:
                    hand(future)
                except MatchInterrupted:
                    continue
    except BaseException:
        cancel.set()
        executor.shutdown(wait=True, cancel_futures=True)
        for future in futures:  # games that ended while the others were stopped still count
            if (
                future not in handed
                and future.done()
                and not future.cancelled()
                and future.exception() is None
            ):
                hand(future)
        raise
    finally:
        executor.shutdown(wait=True)


def run_match(
    a: Program,
    b: Program,
    *,
    games: int = 2,
    seed: int = 0,
    size: int = 6,
    time_limit: float = DEFAULT_BUDGET,
    jobs: int = 1,
    notation: str = "diff",
    out_dir: Path | str | None = None,
    progress: bool = False,
    memory_mb: int = 0,
) -> MatchResult:
    """Play ``games`` games between A and B and return them with the settings.

    Game n (from 1) uses opening (n - 1) // 2; A is red in odd-numbered games. With ``out_dir``
    every finished game is written as it ends (``game-00001.txt``, a line of ``results.jsonl``)
    and ``summary.json`` at the end, also after Ctrl-C, which kills every program and re-raises.
    ``progress`` shows a tqdm bar on stderr. ``memory_mb`` > 0: each program's address-space
    limit. Bad settings raise RefereeError before anything runs.
    """
    if games < 1 or jobs < 1:
        raise RefereeError(f"--games and --jobs must be at least 1 (got {games} and {jobs})")
    if not time_limit > 0 or math.isinf(time_limit):
        raise RefereeError(f"--time must be a positive number of seconds, got {time_limit}")
    if seed < 0:
        raise RefereeError(f"--seed must be >= 0, got {seed}")
    if memory_mb < 0:
        raise RefereeError(f"--memory must be >= 0 MiB (0: no limit), got {memory_mb}")
    if size not in SIZES or notation not in NOTATIONS:
        raise RefereeError(f"size must be one of {SIZES} and notation one of {NOTATIONS}")
    if a.name == b.name:
        raise RefereeError("the two programs need different names")
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        prepare_out_dir(out)
    rules = Rules(size, "codecup")
    settings = {
        "games": games,
        "seed": seed,
        "size": size,
        "time": time_limit,
        "jobs": jobs,
        "notation": notation,
        "memory_mb": memory_mb,
    }
    match = MatchResult((a, b), settings, {}, out)
    cancel = Cancel()
    write_lock = threading.Lock()
    results_file = open(out / "results.jsonl", "a", encoding="utf-8") if out is not None else None

    def one(number: int) -> tuple[int, GameResult]:
        red, white = (a, b) if number % 2 == 1 else (b, a)
        red_start, white_start = draw_opening(rules, seed, (number - 1) // 2)
        stderr_paths = (None, None)
        if out is not None:
            stem = out / "stderr" / GAME_FILE.format(number)[: -len(".txt")]
            stderr_paths = (Path(f"{stem}-{red.name}.txt"), Path(f"{stem}-{white.name}.txt"))
        game = play_game(
            rules,
            red,
            white,
            red_start,
            white_start,
            time_limit,
            notation=notation,
            cancel=cancel,
            stderr_paths=stderr_paths,
            memory_mb=memory_mb,
        )
        if out is not None and results_file is not None:
            write_atomic(out / GAME_FILE.format(number), game_record(number, game, seed, notation))
            line = json.dumps(game_summary(number, game, seed, notation)) + "\n"
            with write_lock:
                results_file.write(line)
                results_file.flush()
                os.fsync(results_file.fileno())
        return number, game

    bar = None
    if progress:
        bar = tqdm(total=games, unit="game", file=sys.stderr, disable=None, dynamic_ncols=True)

    def finished(result: tuple[int, GameResult]) -> None:
        number, game = result
        match.games[number] = game
        if bar is not None:
            bar.set_postfix_str(_progress_text(match.stats()), refresh=False)
            bar.update(1)

    games_to_play = [functools.partial(one, number) for number in range(1, games + 1)]
    try:
        play_parallel(games_to_play, jobs, cancel, finished, "referee-game")
    except BaseException:
        match.interrupted = True
        raise
    finally:
        if bar is not None:
            bar.close()
        if results_file is not None:
            results_file.close()
        if out is not None:
            write_summary(match)
    return match


def write_summary(match: MatchResult) -> None:
    """Write ``summary.json`` (settings, per-program figures) into the match's folder."""
    assert match.out_dir is not None
    summary = {
        "programs": {p.name: p.command for p in match.programs},
        "settings": match.settings,
        "games_finished": len(match.games),
        "interrupted": match.interrupted,
        "win_rate_note": "wins plus half the draws per game; 95% Wilson score interval",
        "stats": {name: s.to_json() for name, s in match.stats().items()},
    }
    write_atomic(match.out_dir / "summary.json", json.dumps(summary, indent=2) + "\n")


def format_table(match: MatchResult) -> str:
    """The final table: one row per program, then the faults and the commands."""
    stats = match.stats()
    header = (
        f"{'program':<8}{'games':>6}{'wins':>6}{'draws':>6}{'losses':>7}{'faults':>7}"
        f"{'mean pts':>10}{'win rate':>10}  {'95% CI':<16}{'slowest move':>20}{'slowest game':>20}"
    )
    rows = [header]
    for s in stats.values():
        low, high = s.interval
        move = f"{s.slowest_move[0]:.3f} s (g{s.slowest_move[1]})" if s.games else "-"
        game = f"{s.slowest_game[0]:.3f} s (g{s.slowest_game[1]})" if s.games else "-"
        rows.append(
            f"{s.name:<8}{s.games:>6}{s.wins:>6}{s.draws:>6}{s.losses:>7}{sum(s.faults.values()):>7}"
            f"{s.mean_points:>10.1f}{100 * s.win_rate:>9.1f}%  "
            f"{f'[{100 * low:.1f}%, {100 * high:.1f}%]':<16}{move:>20}{game:>20}"
        )
    rows.append("win rate = (wins + draws / 2) / games; 95% CI: Wilson score interval")
    for s in stats.values():
        faults = ", ".join(f"{kind} {count}" for kind, count in sorted(s.faults.items())) or "none"
        memory = f"; peak memory {s.peak_memory[0] / 1024:.1f} MiB (g{s.peak_memory[1]})" if s.games else ""
        rows.append(f"{s.name}: {s.command}  [faults: {faults}{memory}]")
    if match.out_dir is not None:
        rows.append(f"results in {match.out_dir}")
    return "\n".join(rows)
