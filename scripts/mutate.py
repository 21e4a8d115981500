"""A small mutation-testing job: plant known bugs one at a time and see whether the tests notice.

    python scripts/mutate.py [--set rules] [--source head|worktree] [--only NAME ...]
                             [--tests PATH ...] [--list] [--timeout S] [--keep]

Each mutant is an exact snippet of a source file and its replacement, planted in a temporary copy
of the repository (``head``: the last commit; ``worktree``: the files as they are now); the
report is a table on stdout, one row per mutant (killed, survived, stale, timeout, error); the
exit status is 0 whatever the outcomes (2 when the unmutated tests fail).

The job is ``tw_rl.reliability.mutation``; the mutant lists are its data files
(``tw_rl/reliability/mutants/<set>.json``: ``rules`` and ``bot``); run one with ``--set NAME``.

Run it niced on a shared machine: ``nice -n 10 python scripts/mutate.py --set rules``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from tw_rl.reliability.mutation import format_report, mutant_sets, run_job


def main(argv: list[str] | None = None) -> int:
    sets = mutant_sets()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="rules", choices=sorted(sets), help="which mutant list")
    parser.add_argument("--source", default="head", choices=("head", "worktree"), help="what to copy")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--tests", nargs="+", metavar="PATH", help="run these tests for every mutant instead")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per test run (default 600)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy")
    args = parser.parse_args(argv)

    mutants = sets[args.set]
    if args.only:
        unknown = set(args.only) - {m.name for m in mutants}
        if unknown:
            parser.error(f"no such mutant(s) in set {args.set}: {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m.name in args.only]
    if args.tests:
        mutants = [dataclasses.replace(m, tests=tuple(args.tests)) for m in mutants]
    if args.list:
        for m in mutants:
            mark = " (equivalent)" if m.equivalent else ""
            more = f" (+{len(m.more)} more edits)" if m.more else ""
            print(f"{m.name}{mark}: {m.files[0]}: {m.old.strip()[:60]!r} -> {m.new.strip()[:60]!r}{more}")
        return 0
    rows = run_job(mutants, args.source, args.timeout, args.keep, log=lambda text: print(text, flush=True))
    if rows is None:
        print("the unmutated tests do not pass; no mutant can be judged", file=sys.stderr)
        return 2
    print()
    print(format_report(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
