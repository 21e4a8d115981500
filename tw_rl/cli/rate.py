"""``tw-rl rate --players P ...``: Elo ratings of checkpoints, baselines and programs from games
stored in a SQLite database; every flag is a field of ``tw_rl.config.RatingConfig`` and takes
its default from there.

Function-level import: ``tw_rl.rating.rating_run`` loads torch (checkpoint players), so it is
imported when the command runs, not for ``tw-rl --help``. The players' syntax in the help is the
player registry's (``tw_rl.rating.player_specs.syntax_help``), which loads without torch.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from tw_rl.cli.common import CliError, add_size_option, sigterm_as_interrupt
from tw_rl.config import RatingConfig
from tw_rl.rating.player_kinds import OutsideProgram
from tw_rl.rating.player_specs import syntax_help
from tw_rl.rating.results_db import ResultsDBError


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    defaults = RatingConfig()
    parser = subparsers.add_parser(
        "rate",
        help="rate checkpoints, baselines and programs against each other (Elo, stored games)",
        description="Play games between the players, colours balanced, always on the pairing whose "
        "rating difference is most uncertain, until the game budget (games already in the database "
        "count) or the target interval width is reached; store every game in a SQLite database as it "
        "ends; fit Bradley-Terry ratings (Elo, anchor = 0, 95% intervals) over all stored games and "
        "write ratings.csv, ratings.json and Elo pictures to --out. --games 0 only rates what is stored. "
        f"Players: {syntax_help()}.",
    )
    parser.set_defaults(**dataclasses.asdict(defaults), func=run)
    add = parser.add_argument
    add("--players", nargs="+", metavar="P", help="the players (default %(default)s)")
    add("--games", type=int, help="game budget among the players (default %(default)s)")
    add("--db", help="results database (default %(default)s)")
    add("--anchor", help="the player rated 0 (default %(default)s)")
    add("--out", metavar="DIR", help="folder for ratings and pictures (default %(default)s)")
    add("--ci-width", type=float, help="stop when every 95%% interval is this narrow (Elo; 0 = off)")
    add("--batch-size", type=int, help="in-process games at once (default %(default)s)")
    add(
        "--jobs", type=int, help="referee games at once; with Ray: game batches at once (default %(default)s)"
    )
    add(
        "--ray-address",
        metavar="ADDR",
        help="play the games as Ray tasks: local (start Ray here), auto or HOST:PORT (a cluster); "
        "needs pip install -e '.[ray]' (default: no Ray)",
    )
    add("--simulations", type=int, help="checkpoint search budget without @N (default %(default)s)")
    add("--time", type=float, help="referee: seconds per program per game (default %(default)s)")
    add(
        "--memory",
        type=int,
        metavar="MIB",
        help="referee: address-space limit per program in MiB, 0 = none (default %(default)s)",
    )
    add_size_option(parser, defaults.size)
    add("--seed", type=int, help="seed of openings and players (default %(default)s)")
    add("--device", help="torch device of checkpoint players (default %(default)s)")
    add("--threads", type=int, help="torch CPU threads (default: torch's)")
    add(
        "--no-tensorboard",
        dest="tensorboard",
        action="store_false",
        help="do not log the Elo curve to runs' tb/",
    )
    add("--no-progress", dest="progress", action="store_false", help="no progress bar")
    add(
        "--import-referee",
        nargs="+",
        metavar="DIR",
        help="first store the games of these tw-rl referee results folders (each program is the "
        f"{OutsideProgram.syntax} player of its command line, named as in --players if listed there)",
    )


def config_of(args: argparse.Namespace) -> RatingConfig:
    """The rating run the parsed flags stand for (one flag per field, same names)."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(RatingConfig)}
    return RatingConfig(**{k: list(v) if isinstance(v, list) else v for k, v in values.items()})


def run(args: argparse.Namespace) -> int:
    # The rating loads torch (checkpoint players): imported here, so `tw-rl --help` stays quick.
    from tw_rl.rating.rating_run import RatingError, run_rating

    cfg = config_of(args)
    try:
        with sigterm_as_interrupt():  # a kill stops like Ctrl-C: the finished games are stored, rated
            result = run_rating(cfg, log=lambda line: print(line, file=sys.stderr))
    except (RatingError, ResultsDBError) as err:
        raise CliError(str(err)) from None
    print(result.report(cfg.db))
    sys.stdout.flush()
    return 130 if result.stopped == "interrupted" else 0
