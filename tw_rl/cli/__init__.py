"""The ``tw-rl`` command line: ``build_parser`` and ``main``; one module per subcommand.

    tw-rl analyze RECORD          one JSON line per position of a game record, then the result
    tw-rl show RECORD [--ply K]   a text board (and optionally an SVG picture) of one position
    tw-rl referee A B [--games N]  a match between two CodeCup-protocol programs
    tw-rl export [--out FILE]     the one-file CodeCup submission, built from tw_rl/codecup
    tw-rl rate --players P ...    Elo ratings of checkpoints, baselines and programs (rating run)
    tw-rl serve [--db FILE]       a local web page: play the bot, replay and study games

To add a command, write ``tw_rl/cli/NAME.py`` with ``add_parser(subparsers)``, which builds its
parser and sets ``func=run``, and ``run(args) -> int``; list the module in ``COMMANDS``. Flag
defaults come from the schemas of ``tw_rl.config``. A command reports a user mistake by raising
``CliError`` (``tw_rl.cli.common``): ``main`` prints it as one ``error: ...`` line on stderr and
returns exit code 2. A renamed command (``RENAMED``) answers its new name the same way, with no
silent alias.

Importing the command line loads no torch, gymnasium or hydra (``tw-rl --help`` stays quick);
the subcommands that need torch import it inside their functions.
"""

from __future__ import annotations

import argparse
import os
import sys

from tw_rl.cli import analyze, export, rate, referee, serve, show
from tw_rl.cli.common import CliError

COMMANDS = (analyze, show, referee, export, rate, serve)
RENAMED = {"evaluate": "rate"}  # old command -> its new name (issue 44: one meaning per name)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tw-rl", description="Tools for the Tumbleweed RL framework.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code (0 success, 2 usage or record error)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in RENAMED:
        print(f"tw-rl {argv[0]} is now tw-rl {RENAMED[argv[0]]} (same options)", file=sys.stderr)
        return 2
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse has printed its message (or the help)
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        return args.func(args)
    except CliError as err:
        sys.stdout.flush()
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); silence the second error at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
