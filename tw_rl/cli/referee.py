"""``tw-rl referee A B``: a match between two CodeCup-protocol programs, judged by the CodeCup
rules; every game goes to a results folder and a table with Wilson intervals to stdout.

A program is a command line, or ``release:VERSION[@SECONDS]``: a frozen release of
``baselines/`` (Python or C++, ``tw_rl.referee.releases``) on its own clock (default: ``--time``).
The help spells the release as the player registry does (``tw_rl.rating.player_kinds.Release``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from tw_rl.cli.common import CliError, add_notation_option, add_size_option, sigterm_as_interrupt
from tw_rl.config import RefereeConfig
from tw_rl.rating.player_kinds import Release
from tw_rl.referee.match import format_table, run_match
from tw_rl.referee.process import Program, RefereeError
from tw_rl.referee.releases import ReleaseError, release_program

RELEASE = Release.words[0] + ":"


def program_of(name: str, text: str, seconds: float) -> Program:
    """A program argument: ``release:VERSION[@SECONDS]`` or a command line."""
    if text.startswith(RELEASE):
        return release_program(name, text[len(RELEASE) :], seconds)
    return Program.parse(name, text)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    defaults = RefereeConfig()
    parser = subparsers.add_parser(
        "referee",
        help="play a match between two CodeCup-protocol programs",
        description="Play games between two programs that speak the CodeCup protocol on stdin/stdout, "
        "judge them by the CodeCup rules (faults included), and write every game, results.jsonl and "
        "summary.json to a results folder. Pairs of games share a judge-drawn opening; A is red in "
        "games 1, 3, 5, ...",
    )
    parser.add_argument(
        "program_a",
        metavar="A",
        help=f'command line of program A, e.g. "python bot.py", or {Release.syntax} ({Release.summary})',
    )
    parser.add_argument("program_b", metavar="B", help="program B, as A")
    parser.add_argument(
        "--games", type=int, default=defaults.games, help="number of games (default %(default)s)"
    )
    parser.add_argument(
        "--jobs", type=int, default=defaults.jobs, help="games played at once (default %(default)s)"
    )
    parser.add_argument(
        "--seed", type=int, default=defaults.seed, help="seed of the drawn openings (default %(default)s)"
    )
    add_size_option(parser, defaults.size)
    parser.add_argument(
        "--time",
        type=float,
        default=defaults.time,
        help="thinking seconds per player per game (default %(default)s)",
    )
    add_notation_option(parser, defaults.notation)
    parser.add_argument(
        "--memory",
        type=int,
        metavar="MIB",
        default=defaults.memory,
        help="address-space limit of each program in MiB; an allocation past it fails and the "
        "program's crash is its fault (0: no limit; default %(default)s)",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        default=defaults.out,
        help="results folder (default referee-results/<time stamp>)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = args.out or os.path.join("referee-results", time.strftime("%Y%m%d-%H%M%S"))
    try:
        with sigterm_as_interrupt():  # a kill stops the match as Ctrl-C does
            a = program_of("A", args.program_a, args.time)
            b = program_of("B", args.program_b, args.time)
            match = run_match(
                a,
                b,
                games=args.games,
                seed=args.seed,
                size=args.size,
                time_limit=args.time,
                jobs=args.jobs,
                notation=args.notation,
                out_dir=out,
                progress=True,
                memory_mb=args.memory,
            )
    except (RefereeError, ReleaseError) as err:
        raise CliError(str(err)) from None
    except KeyboardInterrupt:
        print(f"interrupted: the finished games are in {out}", file=sys.stderr)
        return 130
    print(format_table(match))
    sys.stdout.flush()
    hint = match.crash_hint()
    if hint:
        print(f"hint: {hint}", file=sys.stderr)
    return 0
