"""The CodeCup conversation on stdin/stdout for any player (standard library only).

Red reads its start cell, white's start cell and ``Start``, then prints its move.  White reads
the two start cells and red's first move, then prints its move.  Then each side reads the
other's move and answers.  ``Quit`` (at any point) ends the program at once.  A move is a cell
name such as ``F6``, or ``Pass``, which is printed only when there is no legal placement.

Exit codes: 0 after ``Quit`` or at the end of input (EOF gets one line on stderr); 1 after
input it does not understand (garbage, an illegal move of the opponent, a bad start), with one
line on stderr.  It never prints an illegal move: a player's answer is checked against the
rules engine, and a failing player is replaced by a legal fallback move (one stderr line).

The time of a move runs from the moment its request line was read until the answer has been
flushed; the player gets ``seconds_left`` of the game budget when it is asked.
"""

import sys
import time

from tw_rl.codecup.clock import DEFAULT_BUDGET, GameClock
from tw_rl.codecup.rules import RED, WHITE, Board, Position

QUIT = "Quit"
START = "Start"
PASS = "Pass"


class ProtocolError(Exception):
    """Input the program does not understand."""


class _Quit(Exception):
    pass


class _Eof(Exception):
    pass


def _read(inp):
    """(line, time it was read); blank lines are skipped; Quit and EOF raise."""
    while True:
        raw = inp.readline()
        if not raw:
            raise _Eof()
        line = raw.strip()
        if line:
            t = time.monotonic()
            if line == QUIT:
                raise _Quit()
            return line, t


def _say(err, text):
    """One line on stderr, flushed (the judge keeps it in the game log)."""
    err.write(text + "\n")
    err.flush()


def move_name(board, move, notation="diff"):
    return PASS if move == board.num_cells else board.name(move, notation)


def parse_move(board, text, notation="diff"):
    """Cell index of a move name, num_cells for Pass; ProtocolError if it is not one."""
    if text == PASS:
        return board.num_cells
    try:
        return board.parse(text, notation)
    except ValueError:
        raise ProtocolError(f"not a move: {text[:40]!r}") from None


def _observe(player, position):
    """Tell the player the position after the opponent's move, if it wants to know."""
    observe = getattr(player, "observe", None)
    if observe is not None:
        try:
            observe(position.copy())
        except Exception:
            pass  # only a hint for tree reuse


def _apply_opponent(position, text, notation):
    move = parse_move(position.board, text, notation)
    if position.over:
        # Our rules engine ended the game but the judge goes on: keep playing its game.
        position.over = False
    if move not in position.legal_moves():
        raise ProtocolError(f"illegal move from the opponent: {text[:40]!r}")
    position.play(move)


def _answer(player, position, clock, out, err):
    """Ask the player, check the answer, print it; returns the move."""
    if position.over:
        position.over = False  # see _apply_opponent
    legal = position.legal_moves()
    try:
        move = player.choose(position.copy(), clock.seconds_left())
    except Exception as e:  # a failing player must not lose the game by a crash
        _say(err, f"player failed ({type(e).__name__}: {str(e)[:80]}); playing a fallback move")
        move = None
    if move not in legal:
        if move is not None:
            _say(err, f"player chose an illegal move {move!r}; playing a fallback move")
        move = legal[0]
    out.write(move_name(position.board, move) + "\n")
    out.flush()
    clock.stop()
    position.play(move)
    return move


def converse(
    player,
    position,
    colour,
    inp,
    out,
    err,
    budget=DEFAULT_BUDGET,
    first_request=None,
    notation="diff",
    startup=0.0,
):
    """The game loop from ``position`` (which is changed) with the player playing ``colour``.

    When it is ``colour``'s turn the player answers at once (its move was requested at time
    ``first_request``, default now); otherwise the loop first reads the opponent's move.
    ``startup`` seconds (spent before the game) are charged to the clock. Returns the exit code.
    """
    clock = GameClock(budget, startup=startup)
    try:
        try:
            if position.to_move == colour and not position.over:
                clock.start(first_request)
                _answer(player, position, clock, out, err)
            while True:
                line, t = _read(inp)
                clock.start(t)
                _apply_opponent(position, line, notation)
                _observe(player, position)
                _answer(player, position, clock, out, err)
        except _Quit:
            return 0
        except _Eof:
            _say(err, "end of input before Quit; exiting")
            return 0
        except ProtocolError as e:
            _say(err, f"{e}; exiting")
            return 1
    except (BrokenPipeError, OSError) as e:
        try:
            _say(err, f"output closed ({type(e).__name__}); exiting")
        except Exception:
            pass
        return 1


def run(player, inp=None, out=None, err=None, size=6, budget=DEFAULT_BUDGET, notation="diff", startup=0.0):
    """A whole CodeCup game of ``player`` over the streams (default: stdin/stdout/stderr);
    ``startup``: seconds spent before it (charged to the game clock)."""
    inp = sys.stdin if inp is None else inp
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    board = Board(size)
    try:
        red_cell = parse_move(board, _read(inp)[0], notation)
        white_cell = parse_move(board, _read(inp)[0], notation)
        if red_cell == board.num_cells or white_cell == board.num_cells:
            raise ProtocolError("a start cell cannot be Pass")
        try:
            position = Position.start(board, red_cell, white_cell)
        except ValueError as e:
            raise ProtocolError(f"bad start position: {e}") from None
        third, t = _read(inp)
    except _Quit:
        return 0
    except _Eof:
        _say(err, "end of input before the game started; exiting")
        return 0
    except ProtocolError as e:
        _say(err, f"{e}; exiting")
        return 1
    if third == START:
        return converse(player, position, RED, inp, out, err, budget, t, notation, startup)
    try:
        _apply_opponent(position, third, notation)
    except ProtocolError as e:
        _say(err, f"{e}; exiting")
        return 1
    _observe(player, position)
    return converse(player, position, WHITE, inp, out, err, budget, t, notation, startup)
