"""Kill tests: SIGKILL a training run, a rating run or a distillation at random moments, start it
again, many times, and check that nothing was lost, counted twice or left half-written.

    python scripts/kill_test.py train --rounds 40            # training runs (scripts/train.py debug=default)
    python scripts/kill_test.py rate --rounds 20             # tw-rl rate into a SQLite database
    python scripts/kill_test.py export --rounds 10           # tw-rl export --run (the distillation)
    python scripts/kill_test.py all --rounds 20 --work DIR   # the three; DIR is kept (default: a temp folder)

Each round starts the command as a subprocess and kills it with SIGKILL: after a random time, or
(training) at a chosen point inside it: during self-play (the k-th search call), half-way
through writing a shard, checkpoint or config file (``*-mid``) or after writing it but before
its rename (``*-late``), during training (the k-th gradient step), in the arena (the k-th
match), half-way through a metrics line. The point is installed by running the command through
this script (``_child POINT K -- ARGS``), which patches the function, then hands over to
``scripts/train.py`` (this child side is all the script keeps; the rounds are
``tw_rl.reliability.kills``, the checks ``tw_rl.reliability.audits``). After every kill the
folder is checked for what must always hold (every shard and checkpoint readable, no
generation's games over its count, no metrics line twice); when a run completes it is checked in
full (every generation's checkpoint loads with ``torch.load(weights_only=True)``, each
generation's shards hold exactly its games, one metrics line per generation, no temporary files)
and a new run starts, so that kills keep landing in every stage. At the end every unfinished run
is completed without kills and checked.

Rating: ``tw-rl rate`` (baselines in-process and two protocol programs through the
referee) killed at random times; after each kill no program process is left and the database
is sound; at the end the stored games match the budget exactly, no slot twice, every game
replays to its stored result. Export: ``tw-rl export --run`` killed at random times; whatever
lies at the output paths is always a whole weights file and a whole submission.

Exit status 1 (and the problems listed) when a check fails.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import signal
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRAIN_SCRIPT = ROOT / "scripts" / "train.py"

# ----------------------------------------------------------------------------- the child side


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class _HalfThenDie:
    """A file handle that writes half of the first write, syncs it and kills the process."""

    def __init__(self, handle):
        self._handle = handle

    def write(self, data) -> int:
        data = bytes(data)
        self._handle.write(data[: max(1, len(data) // 2)])
        self._handle.flush()
        os.fsync(self._handle.fileno())
        _die()
        return 0

    def __getattr__(self, name):
        return getattr(self._handle, name)


def install_kill_point(point: str, k: int) -> None:
    """Patch the training stack so that the process SIGKILLs itself at ``point``, occurrence ``k``."""
    count = {"n": 0}

    def hit() -> bool:
        count["n"] += 1
        return count["n"] == k

    if point.split("-")[0] in ("shard", "checkpoint", "config"):
        import tw_rl.files as files

        prefix = {"shard": "shard-", "checkpoint": "ckpt-", "config": "config.json"}[point.split("-")[0]]
        original = files.atomic_writer

        @contextlib.contextmanager
        def atomic_writer(path, check=None):
            if not Path(path).name.startswith(prefix) or not hit():
                with original(path, check) as handle:
                    yield handle
                return
            with original(path, check) as handle:
                if point.endswith("-mid"):
                    yield _HalfThenDie(handle)
                else:
                    yield handle
                    handle.flush()
                    os.fsync(handle.fileno())
                    _die()

        files.atomic_writer = atomic_writer  # before the training modules import it
    elif point == "selfplay":
        from tw_rl.core.mcts import BatchedMCTS

        search = BatchedMCTS.search

        def searching(self, *args, **kwargs):
            if hit():
                _die()
            return search(self, *args, **kwargs)

        BatchedMCTS.search = searching
    elif point == "train":
        from tw_rl.training.learner import Learner

        step = Learner.train_step

        def stepping(self, *args, **kwargs):
            if hit():
                _die()
            return step(self, *args, **kwargs)

        Learner.train_step = stepping
    elif point == "arena":
        import tw_rl.training.loop as loop

        play_match = loop.play_match

        def matching(*args, **kwargs):
            if hit():
                _die()
            return play_match(*args, **kwargs)

        loop.play_match = matching
    elif point == "metrics-mid":
        import tw_rl.training.metrics_log as metrics_log

        append_line = metrics_log.append_line

        def appending(path, line):
            if Path(path).name == "metrics.jsonl" and hit():
                with open(path, "ab") as handle:
                    handle.write(line.encode()[: len(line) // 2])
                    handle.flush()
                    os.fsync(handle.fileno())
                _die()
            return append_line(path, line)

        metrics_log.append_line = appending
    elif point != "none":
        raise SystemExit(f"unknown kill point {point!r}")


def child(argv: list[str]) -> None:
    """``_child POINT K -- train.py overrides``: install the kill point, run scripts/train.py."""
    import runpy

    point, k = argv[0], int(argv[1])
    rest = argv[argv.index("--") + 1 :] if "--" in argv else argv[2:]
    install_kill_point(point, k)
    sys.argv = [str(TRAIN_SCRIPT), *rest]
    runpy.run_path(str(TRAIN_SCRIPT), run_name="__main__")


# ----------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_child"]:
        child(argv[1:])
        return 0
    # Imported here, not above: the child must patch the training stack before it is imported.
    from tw_rl.reliability.kills import (
        kill_export,
        kill_rate,
        kill_train,
        log_line,
        run_round,
        train_command,
    )

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("train", "rate", "export", "all"))
    parser.add_argument("--rounds", type=int, default=20, help="kills per command (default %(default)s)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the kill times and points")
    parser.add_argument("--work", type=Path, default=None, help="working folder (default: a temporary one)")
    parser.add_argument("--run", type=Path, default=None, help="export: the training run to distil")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    rng = random.Random(seed)
    work = args.work or Path(tempfile.mkdtemp(prefix="tw-kill-"))
    log_line(f"kill test {args.what}: seed {seed}, work folder {work}")
    problems: list[str] = []
    if args.what in ("train", "all"):
        problems += kill_train(work / "train", args.rounds, rng)
    if args.what in ("rate", "all"):
        problems += kill_rate(work / "rate", args.rounds, rng)
    if args.what in ("export", "all"):
        run = args.run
        if run is None:
            run = work / "train" / "run-000"
            if not (run / "checkpoints").is_dir():
                log_line("export: training a run to distil first")
                code, _ = run_round(train_command(run, "none", 0), None, 900, work / "train.log")
                if code != 0:
                    problems.append(f"the training run for the export failed (status {code})")
        if not problems or args.what == "all":
            problems += kill_export(work / "export", run, args.rounds, rng)
    for problem in problems:
        log_line(f"PROBLEM: {problem}")
    log_line(f"kill test {args.what}: {'FAILED' if problems else 'passed'} (seed {seed}, work folder {work})")
    if not problems and args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
