"""What several ``tw-rl`` subcommands share: the one-line user error, the game-record options and
replay of ``analyze`` / ``show``, and SIGTERM handled as Ctrl-C for the long-running commands."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from tw_rl.config import BoardConfig
from tw_rl.core.hexgrid import SIZES
from tw_rl.core.notation import NOTATIONS, PASS, cell_name, parse_cell, record_words
from tw_rl.core.record import IllegalMove, replay_moves
from tw_rl.core.rules import VARIANTS, Rules
from tw_rl.core.state import COLOUR_NAMES, State

DEFAULT_NOTATION = NOTATIONS[0]  # "diff", the reading tw_rl.core.notation defaults to


class CliError(Exception):
    """A user mistake (bad record, bad option value): one line, exit code 2."""


# ------------------------------------------------------------------------------ options


def add_size_option(parser: argparse.ArgumentParser, default: int) -> None:
    parser.add_argument(
        "--size", type=int, choices=SIZES, default=default, help="cells per side (default %(default)s)"
    )


def add_notation_option(parser: argparse.ArgumentParser, default: str = DEFAULT_NOTATION) -> None:
    parser.add_argument(
        "--notation", choices=NOTATIONS, default=default, help="cell-name reading (default %(default)s)"
    )


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """The record and how to read it: the options of ``analyze`` and ``show``."""
    board = BoardConfig()
    parser.add_argument("record", metavar="RECORD", help="game record file, or - for stdin")
    add_size_option(parser, board.size)
    parser.add_argument(
        "--rules", choices=VARIANTS, default=board.variant, help="rule variant (default %(default)s)"
    )
    add_notation_option(parser)


def rules_of(args: argparse.Namespace) -> Rules:
    # A record begins with both start cells already placed (after any pie choice), so the
    # set-up option plays no part: the judge set-up is valid for both variants.
    return Rules(args.size, args.rules, setup="judge")


# ------------------------------------------------------------------------------ records


@dataclass
class Position:
    """One position of a replayed record (a batch-of-one State) and how it was reached."""

    ply: int
    state: State
    move_name: str | None  # the move that led here, as written in the record


def _record_words(stream: Iterable[str], label: str) -> Iterator[tuple[int, str]]:
    """(line number, word) for each item of a record, read lazily; bad bytes are a CliError."""
    number = 0
    try:
        for number, word in record_words(stream):
            yield number, word
    except UnicodeDecodeError:
        raise CliError(f"record {label} is not UTF-8 text (after line {number})") from None


def _open_record(path: str) -> TextIO:
    if path == "-":
        return sys.stdin
    try:
        return open(path, encoding="utf-8")
    except OSError as err:
        raise CliError(f"cannot read record {path}: {err.strerror or err}") from None


def _check_start(rules: Rules, red_cell: int, white_cell: int, names: tuple[str, str]) -> None:
    grid = rules.grid
    for colour, cell, name in (("red", red_cell, names[0]), ("white", white_cell, names[1])):
        if cell == grid.centre:
            raise CliError(f"start: {colour}'s start cell {name} is the centre (the neutral stack's cell)")
        if rules.codecup and grid.on_border[cell]:
            raise CliError(f"start: {colour}'s start cell {name} is on the border (not allowed in CodeCup)")
    if red_cell == white_cell:
        raise CliError(f"start: white's start cell {names[1]} is red's start cell too")
    if rules.codecup and white_cell in grid.neighbours[red_cell]:
        raise CliError(
            f"start: white's start cell {names[1]} touches red's start cell {names[0]} "
            "(not allowed in CodeCup)"
        )


def _start_cells(rules: Rules, words: Iterator[tuple[int, str]], notation: str) -> tuple[int, int]:
    """Red's and white's start cells, the record's first two items, checked."""
    starts: list[int] = []
    names: list[str] = []
    for colour in ("red", "white"):
        item = next(words, None)
        if item is None:
            raise CliError("the record ends before red's and white's start cells (its first two lines)")
        number, word = item
        try:
            starts.append(parse_cell(rules.grid, word, notation, allow_pass=False))
        except ValueError as err:
            raise CliError(f"start: {colour}'s start cell (line {number}): {err}") from None
        names.append(word)
    _check_start(rules, starts[0], starts[1], (names[0], names[1]))
    return starts[0], starts[1]


def replay(rules: Rules, words: Iterable[tuple[int, str]], notation: str) -> Iterator[Position]:
    """Play a record through ``tw_rl.core.record.replay_moves``: ply 0, then the position after
    every move, the words read and parsed as the replay goes.

    The first bad start cell, unreadable move or illegal move raises ``CliError`` naming the ply,
    the move and its line; positions already yielded stay valid.
    """
    words = iter(words)
    red, white = _start_cells(rules, words, notation)
    read: list[tuple[int, str]] = []  # (line, word) of every move handed to the replay

    def moves() -> Iterator[int]:
        for ply, (number, word) in enumerate(words):
            try:
                action = parse_cell(rules.grid, word, notation)
            except ValueError as err:
                raise CliError(f"ply {ply}: move {err} (line {number})") from None
            read.append((number, word))
            yield action

    try:
        for ply, state in enumerate(replay_moves(rules, red, white, moves())):
            yield Position(ply, state, read[ply - 1][1] if ply else None)
    except IllegalMove as err:
        number, word = read[err.ply]
        if err.over:
            raise CliError(
                f"ply {err.ply}: move {word} comes after the end of the game (line {number})"
            ) from None
        mover = COLOUR_NAMES[err.colour]
        raise CliError(
            f"ply {err.ply}: move {word} is illegal for {mover}: {err.reason} (line {number})"
        ) from None


def record_positions(args: argparse.Namespace, rules: Rules) -> Iterator[Position]:
    """The positions of the record ``args.record`` (a file or - for stdin), read lazily."""
    stream = _open_record(args.record)
    try:
        yield from replay(rules, _record_words(stream, args.record), args.notation)
    finally:
        if stream is not sys.stdin:
            stream.close()


def territory_counts(rules: Rules, state: State) -> tuple[int, int]:
    rules.ensure_territory(state)
    counts = state.territory[0].sum(axis=1)
    return int(counts[0]), int(counts[1])


def legal_names(rules: Rules, state: State, notation: str) -> list[str]:
    grid = rules.grid
    mask = rules.legal_mask(state)[0]
    names = sorted(cell_name(grid, int(i), notation) for i in np.flatnonzero(mask[: grid.num_cells]))
    if mask[grid.num_cells]:
        names.append(PASS)
    return names


def result(rules: Rules, state: State) -> tuple[tuple[int, int], str | None]:
    """((red points, white points), winner word or None while the game goes on)."""
    points = rules.score(state)[0]
    winner = None
    if state.terminated[0]:
        code = int(rules.winner(state)[0])
        winner = COLOUR_NAMES.get(code, "draw")
    return (int(points[0]), int(points[1])), winner


# ------------------------------------------------------------------------------ signals


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block a kill (SIGTERM) raises KeyboardInterrupt, as Ctrl-C does.

    Signal handlers can only be set in the main thread; elsewhere the block runs unchanged.
    """

    def terminate(signum, frame):
        raise KeyboardInterrupt

    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, terminate) if in_main else None
    try:
        yield
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)
