"""One refereed game: two programs, an opening, every answer judged and the game scored.

The referee judges every answer with the batched engine and scores the game by the CodeCup
rules, faults included (an illegal move, a pass while a placement exists, a garbage line, a
crash, a time-out: the offender 0, the other the forfeit formula).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tw_rl.codecup.clock import DEFAULT_BUDGET
from tw_rl.core.notation import PASS, cell_name, parse_cell
from tw_rl.core.rules import Rules
from tw_rl.core.state import COLOUR_NAMES, RED, WHITE, State
from tw_rl.referee.process import Answer, Cancel, PlayerProcess, Program, shorten

FAULT_KINDS = ("illegal", "pass", "garbage", "crash", "timeout")
QUIT_GRACE_S = 1.0  # how long a program may take to exit after "Quit" before it is killed
CELL_WORD = re.compile(r"[A-Z][1-9][0-9]*")  # the shape of a cell name (ASCII digits only)


def draw_opening(rules: Rules, seed: int, opening: int) -> tuple[int, int]:
    """The start cells of opening ``opening``, drawn as the judge draws them; the same for any
    number of games, so a longer match extends a shorter one."""
    red, white = rules.draw_starts(1, np.random.default_rng([seed, opening]))
    return int(red[0]), int(white[0])


@dataclass(frozen=True)
class Fault:
    """How a game was forfeited: the kind (one of FAULT_KINDS), who, when and what."""

    kind: str
    colour: int  # RED or WHITE: the offender
    ply: int  # the ply it failed to play (0 = red's first move)
    answer: str | None  # the line it printed, if any
    detail: str

    def describe(self, program: Program) -> str:
        who = f"{COLOUR_NAMES[self.colour]} ({program.name})"
        said = f" answered {shorten(self.answer)!r}" if self.answer is not None else ""
        return (
            f"ply {self.ply}: {who}{said}: {self.kind}: {self.detail}; {COLOUR_NAMES[self.colour]} forfeits"
        )


@dataclass
class GameResult:
    """One finished game, by colour: red's figures first, white's second."""

    red: Program
    white: Program
    size: int
    red_start: int
    white_start: int
    moves: list[int]  # the moves played; an offending move is not among them
    points: tuple[int, int]
    winner: int  # RED, WHITE, or 0 for a draw
    end: str  # "end rule", "two passes" or "fault"
    fault: Fault | None
    thinking: tuple[float, float]  # seconds of thinking
    slowest: tuple[tuple[float, int], tuple[float, int]]  # (seconds, ply) of the slowest answer; ply -1: none
    max_rss_kib: tuple[int, int] = (0, 0)  # peak memory (VmHWM, KiB) of each program; 0: not measured
    clocks: tuple[float, float] = (0.0, 0.0)  # each program's clock, seconds a game, as the judge kept it

    def program(self, colour: int) -> Program:
        return self.red if colour == RED else self.white


def judge(rules: Rules, state: State, answer: Answer, ply: int, notation: str) -> tuple[int, Fault | None]:
    """The action an answer names (-1 for none) and the fault it commits, if any."""
    grid = rules.grid
    mover = int(state.to_move[0])
    if answer.kind is not None:
        return -1, Fault(answer.kind, mover, ply, answer.text, answer.detail)
    text = answer.text
    assert text is not None
    if text == PASS:
        action = grid.num_cells
    elif CELL_WORD.fullmatch(text):
        try:
            action = parse_cell(grid, text, notation, allow_pass=False)
        except ValueError:
            return -1, Fault("illegal", mover, ply, text, f"{text} is not a cell of the board")
    else:
        what = "an empty line" if not text else f"{shorten(text)!r}"
        return -1, Fault(
            "garbage", mover, ply, text, f"{what} is not a move (a cell name such as F6, or Pass)"
        )
    if not rules.legal_mask(state)[0, action]:
        kind = "pass" if action == grid.num_cells else "illegal"
        return action, Fault(kind, mover, ply, text, rules.why_illegal(state, action))
    return action, None


def play_game(
    rules: Rules,
    red: Program,
    white: Program,
    red_start: int,
    white_start: int,
    time_limit: float = DEFAULT_BUDGET,
    *,
    notation: str = "diff",
    cancel: Cancel | None = None,
    stderr_paths: tuple[Path | None, Path | None] = (None, None),
    memory_mb: int = 0,
) -> GameResult:
    """Play one game between two programs and judge it (CodeCup rules and protocol).

    ``time_limit`` is each player's thinking budget in seconds, unless the program has a clock of
    its own (``Program.seconds``, a release at ``@SECONDS``). ``stderr_paths`` keep what the
    programs write to stderr (files left only when not empty). ``memory_mb`` > 0 limits each
    program's address space (an allocation past it fails: a crash). Raises MatchInterrupted when
    ``cancel`` is set during the game. Both programs are dead when this returns or raises.
    """
    if not rules.codecup:
        raise ValueError("the referee plays the codecup variant")
    grid = rules.grid
    state = rules.start(red_start, white_start)
    starts = [cell_name(grid, red_start, notation), cell_name(grid, white_start, notation)]
    budgets = tuple(time_limit if p.seconds is None else p.seconds for p in (red, white))
    players: list[PlayerProcess] = []
    try:
        players.append(PlayerProcess(red, stderr_paths[0], cancel, memory_mb))
        players.append(PlayerProcess(white, stderr_paths[1], cancel, memory_mb))
        players[0].pending = [*starts, "Start"]
        players[1].pending = list(starts)
        moves: list[int] = []
        fault = None
        while not state.terminated[0]:
            mover = int(state.to_move[0])
            ply = len(moves)
            answer = players[mover - 1].ask(budgets[mover - 1], ply)
            action, fault = judge(rules, state, answer, ply, notation)
            state = rules.step(state, action)  # an illegal action (or -1) is a forfeit
            if fault is not None:
                break
            moves.append(action)
            players[2 - mover].pending.append(cell_name(grid, action, notation))
        # Both get Quit, except a program that crashed or was killed for its time.
        quitters = [
            p
            for colour, p in zip((RED, WHITE), players, strict=True)
            if fault is None or fault.kind not in ("crash", "timeout") or fault.colour != colour
        ]
        for player in players:
            player.sample_memory()  # its peak so far, while it still lives
        for player in quitters:
            player.send(["Quit"])
        deadline = time.monotonic() + QUIT_GRACE_S
        for player in quitters:
            player.finish(deadline - time.monotonic())
        points = rules.score(state)[0]
        end = "fault" if fault is not None else "two passes" if state.passes[0] >= 2 else "end rule"
        return GameResult(
            red=red,
            white=white,
            size=rules.size,
            red_start=red_start,
            white_start=white_start,
            moves=moves,
            points=(int(points[0]), int(points[1])),
            winner=int(rules.winner(state)[0]),
            end=end,
            fault=fault,
            thinking=(players[0].used, players[1].used),
            slowest=(players[0].slowest, players[1].slowest),
            max_rss_kib=(players[0].max_rss_kib, players[1].max_rss_kib),
            clocks=budgets,
        )
    finally:
        for player in players:
            player.close()
