"""What several ``tw-rl`` subcommands share: the one-line user error, the game-record options and
replay of ``analyze`` / ``show``, and SIGTERM handled as Ctrl-C for the long-running commands."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TextIO

import numpy as np

from tw_rl.config import BoardConfig
from tw_rl.core.hexgrid import SIZES
from tw_rl.core.notation import NOTATIONS, PASS, RecordError, cell_name, record_words
from tw_rl.core.record import RecordPosition, replay_record
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


Position = RecordPosition  # one position of a replayed record


def replay(rules: Rules, words: Iterable[tuple[int, str]], notation: str) -> Iterator[Position]:
    """``tw_rl.core.record.replay_record`` with its RecordError as a CliError (one line)."""
    try:
        yield from replay_record(rules, words, notation)
    except RecordError as err:
        raise CliError(str(err)) from None


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
