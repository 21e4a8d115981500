"""Soak test of a CodeCup submission: many refereed games at the real clock against a mix of
opponents, every game filed and stored in the rating's results database, faults, time and memory
reported. Resumable: run the same command again and it continues where it stopped.

    python scripts/soak.py --games 1000                          # builds soak/submission.py (tw-rl export)
    python scripts/soak.py --games 1000 --submission sub.py      # a given submission
    python scripts/soak.py --games 6 --time 3 --out /tmp/soak    # a short check
    python scripts/soak.py --games 0 --out soak                  # only the report of what is there

The soak itself, its folder and its report: ``tw_rl.reliability.soak``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from tw_rl.cli.common import sigterm_as_interrupt
from tw_rl.rating.kinds import RatingError
from tw_rl.rating.results_db import ResultsDBError
from tw_rl.referee.process import RefereeError
from tw_rl.reliability.soak import OPPONENTS, SoakConfig, SoakError, soak


def main(argv: list[str] | None = None) -> int:
    defaults = SoakConfig()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--games", type=int, default=defaults.games, help="games in the soak (default %(default)s)")
    add("--submission", default=defaults.submission, help="the submission to soak (default: build one)")
    add("--out", default=defaults.out, help="the soak folder (default %(default)s)")
    add("--db", default=defaults.db, help="results database (default %(default)s)")
    add(
        "--time", type=float, default=defaults.time, help="seconds per program per game (default %(default)s)"
    )
    add("--jobs", type=int, default=defaults.jobs, help="games at once (default: the cores, %(default)s)")
    add("--opponents", nargs="+", default=defaults.opponents, choices=OPPONENTS, help="default: all")
    add("--release", default=defaults.release, help="the frozen release to play (default %(default)s)")
    add("--seed", type=int, default=defaults.seed, help="seed of the openings (default %(default)s)")
    add(
        "--memory",
        type=int,
        default=defaults.memory,
        help="address-space limit per program, MiB (default %(default)s)",
    )
    args = parser.parse_args(argv)
    config = SoakConfig(**{f.name: getattr(args, f.name) for f in dataclasses.fields(SoakConfig)})
    try:
        return soak(config, sigterm_as_interrupt)
    except (SoakError, RefereeError, RatingError, ResultsDBError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
