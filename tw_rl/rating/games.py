"""Rating games: refereed games and stored games.

Games between two in-process players are played batched (``tw_rl.training.match.play_batch``,
the one way to play in-process matches, with its ``Slot`` and ``MatchGame``). A game with an outside
program goes through the referee (``tw_rl.referee.game.play_game``); an in-process opponent then
runs as a CodeCup-protocol program itself (``tw_rl.rating.serve``). A finished game becomes a
row of the results database (``game_row``); a stored row becomes an MatchGame again
(``games_of``).
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Callable, Mapping, Sequence

from tw_rl.config import RatingConfig
from tw_rl.core.notation import cell_name, parse_cell
from tw_rl.core.rules import Rules
from tw_rl.core.state import COLOUR_NAMES, RED, WHITE
from tw_rl.rating.kinds import PlayerSpec, kind_of
from tw_rl.rating.results_db import GameRow, ResultsDB
from tw_rl.rating.serve import serve_argv
from tw_rl.referee.game import play_game
from tw_rl.referee.match import play_parallel
from tw_rl.referee.process import Cancel, Program
from tw_rl.training.match import MatchGame, Slot

# ------------------------------------------------------------------------ refereed games


def referee_program(spec: PlayerSpec, size: int, seed: int) -> Program:
    """The program the referee runs for a player: an outside kind's program, or an in-process
    player served as one (``tw_rl.rating.serve``)."""
    kind = kind_of(spec)
    if not kind.in_process:
        return kind.program(spec)
    argv = serve_argv(spec, size, seed)
    return Program(spec.name, shlex.join(argv), argv)


def play_referee_game(
    rules: Rules,
    red: PlayerSpec,
    white: PlayerSpec,
    slot: Slot,
    time_limit: float,
    seed: int,
    cancel: Cancel | None = None,
    memory_mb: int = 0,
) -> MatchGame:
    """One game through the referee (in-process players are served as protocol programs);
    ``memory_mb`` > 0: each program's address-space limit."""
    result = play_game(
        rules,
        referee_program(red, rules.size, seed),
        referee_program(white, rules.size, seed + 1),
        slot.red_start,
        slot.white_start,
        time_limit,
        cancel=cancel,
        memory_mb=memory_mb,
    )
    fault = None
    if result.fault is not None:
        f = result.fault
        fault = f"{f.kind} by {COLOUR_NAMES[f.colour]} at ply {f.ply}: {f.detail}"
    return MatchGame(slot, list(result.moves), int(result.winner), tuple(result.points), result.end, fault)


def referee_slot_game(
    rules: Rules,
    specs: Mapping[str, PlayerSpec],
    k: int,
    slot: Slot,
    time_limit: float,
    seed: int,
    cancel: Cancel | None = None,
    memory_mb: int = 0,
) -> MatchGame:
    """Slot number ``k`` of a pairing through the referee, the players seeded from the pairing's
    seed, the opening and the colour (the same game wherever it is played)."""
    player_seed = (seed + 4 * slot.opening + 2 * (k % 2)) % 2**31  # white gets player_seed + 1
    return play_referee_game(
        rules, specs[slot.red], specs[slot.white], slot, time_limit, player_seed, cancel, memory_mb
    )


def play_referee_slots(
    rules: Rules,
    specs: Mapping[str, PlayerSpec],
    slots: Sequence[Slot],
    cfg: RatingConfig,
    seed: int,
    cancel: Cancel,
    store: Callable[[MatchGame], None],
) -> None:
    """Play slots through the referee, ``cfg.jobs`` games at once; store each as it ends."""
    games = [
        functools.partial(referee_slot_game, rules, specs, k, slot, cfg.time, seed, cancel, cfg.memory)
        for k, slot in enumerate(slots)
    ]
    play_parallel(games, cfg.jobs, cancel, store, "rating-game")


# ------------------------------------------------------------------------- stored games


def game_text(rules: Rules, moves: Sequence[int]) -> str:
    """Moves as text: cell names (diff notation) and Pass, space-separated."""
    return " ".join(cell_name(rules.grid, int(m)) for m in moves)


def parse_moves(rules: Rules, text: str) -> list[int]:
    """The inverse of ``game_text``."""
    return [parse_cell(rules.grid, word) for word in text.split()]


def game_row(game: MatchGame, red_id: int, white_id: int, rules: Rules, seed: int, source: str) -> GameRow:
    """The results-database row of a finished game (the players by their database ids)."""
    grid = rules.grid
    return GameRow(
        red=red_id,
        white=white_id,
        size=rules.size,
        opening=game.slot.opening,
        seed=seed,
        red_start=cell_name(grid, game.slot.red_start),
        white_start=cell_name(grid, game.slot.white_start),
        result=game.result,
        red_points=int(game.points[0]),
        white_points=int(game.points[1]),
        end_reason=game.end,
        fault=game.fault,
        moves=game_text(rules, game.moves),
        plies=len(game.moves),
        source=source,
    )


def stored_game(row: GameRow, names: Mapping[int, str], rules: Rules) -> MatchGame:
    """A stored game as an MatchGame (``names``: player names by database id); ValueError for a
    cell name that is not on the board."""
    red_start = parse_cell(rules.grid, row.red_start, allow_pass=False)
    white_start = parse_cell(rules.grid, row.white_start, allow_pass=False)
    slot = Slot(names[row.red], names[row.white], red_start, white_start, row.opening)
    winner = RED if row.result == 1.0 else WHITE if row.result == 0.0 else 0
    points = (row.red_points, row.white_points)
    return MatchGame(slot, parse_moves(rules, row.moves), winner, points, row.end_reason, row.fault)


def games_of(db: ResultsDB, rules: Rules) -> list[MatchGame]:
    """The stored games of one board size as MatchGames (for pictures and replays), oldest first."""
    names = {p.id: p.name for p in db.players()}
    return [stored_game(row, names, rules) for row in db.games(rules.size)]
