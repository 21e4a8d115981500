"""Arena games: slots, batched games of in-process players, refereed games, stored games.

Games between two in-process players are played batched (``play_batch``): many games at once,
each player called once per ply on the games where it is to move. A game with an outside
program goes through the referee (``tw_rl.referee.game.play_game``); an in-process opponent then
runs as a CodeCup-protocol program itself (``tw_rl.rating.serve``). A finished game becomes a
row of the results database (``game_row``); a stored row becomes an ArenaGame again
(``games_of``).
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tw_rl.config import EvaluateConfig
from tw_rl.core.notation import cell_name, parse_cell
from tw_rl.core.player import Player
from tw_rl.core.record import replay_moves
from tw_rl.core.rules import Rules
from tw_rl.core.state import COLOUR_NAMES, RED, WHITE, State
from tw_rl.rating.kinds import ArenaError, PlayerSpec, kind_of
from tw_rl.rating.results_db import GameRow, ResultsDB
from tw_rl.rating.serve import serve_argv
from tw_rl.referee.game import play_game
from tw_rl.referee.match import play_parallel
from tw_rl.referee.process import Cancel, Program


@dataclass
class Slot:
    """A game to play: who plays which colour, from which start cells."""

    red: str  # player names
    white: str
    red_start: int
    white_start: int
    opening: int = 0


@dataclass
class ArenaGame:
    """One finished game, by colour."""

    slot: Slot
    moves: list[int]
    winner: int  # RED, WHITE or 0 (draw)
    points: tuple[int, int]  # red's, white's
    end: str  # "end rule", "two passes" or "fault"
    fault: str | None = None

    @property
    def result(self) -> float:
        """Red's score: 1 win, 0.5 draw, 0 loss."""
        return 1.0 if self.winner == RED else 0.0 if self.winner == WHITE else 0.5

    def positions(self, rules: Rules) -> list[State]:
        """The positions of the game, from the start to the end (batches of one)."""
        return list(replay_moves(rules, self.slot.red_start, self.slot.white_start, self.moves))


# ------------------------------------------------------------------------ batched games


def play_batch(
    rules: Rules,
    players: Mapping[str, Player],
    slots: Sequence[Slot],
    rng: np.random.Generator,
    on_finish: Callable[[int, ArenaGame], None] | None = None,
) -> list[ArenaGame]:
    """Play every slot at once; each player acts on all the games where it is to move.

    ``on_finish(i, game)`` is called as soon as game ``i`` ends (to store it), before the
    others have finished. Returns the games in the order of ``slots``.
    """
    if not slots:
        return []
    if rules.setup != "judge":
        raise ArenaError("the arena plays judge-drawn starts (the codecup set-up)")
    state = rules.start([s.red_start for s in slots], [s.white_start for s in slots])
    count = len(slots)
    names = sorted({s.red for s in slots} | {s.white for s in slots})
    red_of = np.array([names.index(s.red) for s in slots])
    white_of = np.array([names.index(s.white) for s in slots])
    moves: list[list[int]] = [[] for _ in slots]
    games: list[ArenaGame | None] = [None] * count
    done = np.zeros(count, dtype=bool)
    while True:
        live = ~state.terminated
        if not live.any():
            break
        mover = np.where(state.to_move == RED, red_of, white_of)
        actions = np.zeros(count, dtype=np.int64)
        for k, name in enumerate(names):
            idx = np.flatnonzero(live & (mover == k))
            if idx.size:
                actions[idx] = players[name](rules, state[idx], rng)
        legal = rules.legal_mask(state)
        illegal = live & ~legal[np.arange(count), np.clip(actions, 0, rules.num_actions - 1)]
        illegal |= live & ((actions < 0) | (actions >= rules.num_actions))
        for g in np.flatnonzero(live & ~illegal):
            moves[g].append(int(actions[g]))
        before = state
        state = rules.step(state, actions)
        finished = np.flatnonzero(state.terminated & ~done)
        if finished.size:
            points = rules.score(state[finished])
            winners = rules.winner(state[finished])
            for k, g in enumerate(finished.tolist()):
                fault = None
                if illegal[g]:
                    who = slots[g].red if before.to_move[g] == RED else slots[g].white
                    fault = f"{who} played the illegal action {int(actions[g])} at ply {len(moves[g])}"
                end = "fault" if fault else "two passes" if state.passes[g] >= 2 else "end rule"
                game = ArenaGame(
                    slots[g], moves[g], int(winners[k]), (int(points[k, 0]), int(points[k, 1])), end, fault
                )
                games[g] = game
                done[g] = True
                if on_finish is not None:
                    on_finish(g, game)
    return [g for g in games if g is not None]


def balanced_slots(rules: Rules, a: str, b: str, games: int, rng: np.random.Generator) -> list[Slot]:
    """``games`` slots for a against b: openings drawn as the judge draws them, each played with
    both colours (a is red in the even slots)."""
    red, white = rules.draw_starts((games + 1) // 2, rng)
    out = []
    for k in range(games):
        o = k // 2
        first, second = (a, b) if k % 2 == 0 else (b, a)
        out.append(Slot(first, second, int(red[o]), int(white[o]), o))
    return out


def play_pair(
    rules: Rules,
    player_a: Player,
    player_b: Player,
    games: int,
    rng: np.random.Generator,
    names: tuple[str, str] = ("A", "B"),
) -> list[ArenaGame]:
    """``games`` colour-balanced games between two in-process players, batched; per-game records."""
    slots = balanced_slots(rules, names[0], names[1], games, rng)
    return play_batch(rules, {names[0]: player_a, names[1]: player_b}, slots, rng)


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
) -> ArenaGame:
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
    return ArenaGame(slot, list(result.moves), int(result.winner), tuple(result.points), result.end, fault)


def referee_slot_game(
    rules: Rules,
    specs: Mapping[str, PlayerSpec],
    k: int,
    slot: Slot,
    time_limit: float,
    seed: int,
    cancel: Cancel | None = None,
    memory_mb: int = 0,
) -> ArenaGame:
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
    cfg: EvaluateConfig,
    seed: int,
    cancel: Cancel,
    store: Callable[[ArenaGame], None],
) -> None:
    """Play slots through the referee, ``cfg.jobs`` games at once; store each as it ends."""
    games = [
        functools.partial(referee_slot_game, rules, specs, k, slot, cfg.time, seed, cancel, cfg.memory)
        for k, slot in enumerate(slots)
    ]
    play_parallel(games, cfg.jobs, cancel, store, "arena-game")


# ------------------------------------------------------------------------- stored games


def game_text(rules: Rules, moves: Sequence[int]) -> str:
    """Moves as text: cell names (diff notation) and Pass, space-separated."""
    return " ".join(cell_name(rules.grid, int(m)) for m in moves)


def parse_moves(rules: Rules, text: str) -> list[int]:
    """The inverse of ``game_text``."""
    return [parse_cell(rules.grid, word) for word in text.split()]


def game_row(game: ArenaGame, red_id: int, white_id: int, rules: Rules, seed: int, source: str) -> GameRow:
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


def arena_game(row: GameRow, names: Mapping[int, str], rules: Rules) -> ArenaGame:
    """A stored game as an ArenaGame (``names``: player names by database id); ValueError for a
    cell name that is not on the board."""
    red_start = parse_cell(rules.grid, row.red_start, allow_pass=False)
    white_start = parse_cell(rules.grid, row.white_start, allow_pass=False)
    slot = Slot(names[row.red], names[row.white], red_start, white_start, row.opening)
    winner = RED if row.result == 1.0 else WHITE if row.result == 0.0 else 0
    points = (row.red_points, row.white_points)
    return ArenaGame(slot, parse_moves(rules, row.moves), winner, points, row.end_reason, row.fault)


def games_of(db: ResultsDB, rules: Rules) -> list[ArenaGame]:
    """The stored games of one board size as ArenaGames (for pictures and replays), oldest first."""
    names = {p.id: p.name for p in db.players()}
    return [arena_game(row, names, rules) for row in db.games(rules.size)]
