"""``tw-rl analyze RECORD``: one JSON line per position of a game record, then the result."""

from __future__ import annotations

import argparse
import json
import sys

from tw_rl.cli import common
from tw_rl.core.state import COLOUR_NAMES


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "analyze",
        help="print one JSON line per position of a game record",
        description="Replay a game record and print, for every position, the ply, the side to move, "
        "the legal moves, the simulated territory counts and whether the game is over; then the score.",
    )
    common.add_game_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rules = common.rules_of(args)
    out = sys.stdout
    last: common.Position | None = None
    for position in common.record_positions(args, rules):
        state = position.state
        red, white = common.territory_counts(rules, state)
        line = {
            "ply": position.ply,
            "to_move": COLOUR_NAMES[int(state.to_move[0])],
            "legal": common.legal_names(rules, state, args.notation),
            "territory": {"red": red, "white": white},
            "over": bool(state.terminated[0]),
        }
        out.write(json.dumps(line) + "\n")
        out.flush()
        last = position
    assert last is not None
    (red_points, white_points), winner = common.result(rules, last.state)
    final = {
        "score": {"red": red_points, "white": white_points},
        "winner": winner,
        "over": bool(last.state.terminated[0]),
        "plies": last.ply,
    }
    out.write(json.dumps(final) + "\n")
    out.flush()
    return 0
