"""``tw-rl show RECORD [--ply K] [--svg FILE]``: one position of a game record as a text board
(the last move in brackets) and a summary line, optionally also as an SVG picture."""

from __future__ import annotations

import argparse
import sys

from tw_rl.cli import common
from tw_rl.core.notation import text_board
from tw_rl.core.picture import svg_board
from tw_rl.core.rules import Rules
from tw_rl.core.state import COLOUR_NAMES
from tw_rl.files import write_atomic


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "show",
        help="draw one position of a game record as text (and optionally SVG)",
        description="Replay a game record and draw the position at one ply (default: the last) as a "
        "text board with the last move in brackets; --svg also writes a picture.",
    )
    common.add_game_options(parser)
    parser.add_argument("--ply", type=int, default=None, help="the ply to show (default: the last)")
    parser.add_argument("--svg", metavar="FILE", default=None, help="also write an SVG picture to FILE")
    parser.set_defaults(func=run)


def _write_file(path: str, text: str) -> None:
    try:
        write_atomic(path, text)
    except OSError as err:
        raise common.CliError(f"cannot write {path}: {err.strerror or err}") from None


def describe(rules: Rules, position: common.Position) -> str:
    """The summary line: ply, last move, whose turn or the result, territory and score."""
    state = position.state
    red, white = common.territory_counts(rules, state)
    (red_points, white_points), winner = common.result(rules, state)
    if position.move_name is None:
        last = "start position"
    else:
        mover = COLOUR_NAMES[3 - int(state.to_move[0])]
        last = f"last move {position.move_name} by {mover}"
    if state.terminated[0]:
        status = "game over, " + ("a draw" if winner == "draw" else f"{winner} wins")
    else:
        status = f"{COLOUR_NAMES[int(state.to_move[0])]} to move"
    return (
        f"ply {position.ply} ({last}); {status}; territory red {red}, white {white}; "
        f"score red {red_points}, white {white_points}"
    )


def run(args: argparse.Namespace) -> int:
    rules = common.rules_of(args)
    grid = rules.grid
    positions = list(common.record_positions(args, rules))
    last_ply = positions[-1].ply
    ply = last_ply if args.ply is None else args.ply
    if not 0 <= ply <= last_ply:
        raise common.CliError(f"--ply {ply} is out of range: the record has plies 0 to {last_ply}")
    position = positions[ply]
    state = position.state
    last_move = int(state.last_move[0])
    print(text_board(grid, state.owner[0], state.height[0], last_move, args.notation))
    print(describe(rules, position))
    if args.svg:
        rules.ensure_territory(state)
        picture = svg_board(
            grid,
            state.owner[0].tolist(),
            state.height[0].tolist(),
            state.territory[0, 0].tolist(),
            state.territory[0, 1].tolist(),
            last_move,
            args.notation,
        )
        _write_file(args.svg, picture)
    sys.stdout.flush()
    return 0
