"""``tw-rl export [--target python|cpp] [--out FILE]``: the one-file CodeCup submission built from
``tw_rl/codecup`` (Python, the default) or ``tw_rl/native`` (C++17) with a weights file embedded
(the shipped student, another file, none, or one distilled from a run with ``--run``);
``--check`` plays it through a game as each colour (the C++ file compiled first).

Function-level import: ``tw_rl.export.pipeline`` (torch), only with ``--run``, so that
``tw-rl --help`` and a plain export never load torch.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tw_rl.cli.common import CliError
from tw_rl.codecup.weights import CODECUP_SIZE, DEFAULT_NETWORKS, WeightsError, default_weights
from tw_rl.config import ExportConfig
from tw_rl.export import submission, submission_check
from tw_rl.native import build as native_build

DEFAULT_OUT = "submission.py"
DEFAULT_OUTS = {"python": DEFAULT_OUT, "cpp": "submission.cpp"}


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    defaults = ExportConfig()
    parser = subparsers.add_parser(
        "export",
        help="write the one-file CodeCup submission (the tw_rl.codecup bot)",
        description="Generate one self-contained, standard-library-only Python file from the "
        "tw_rl.codecup sources with a weights file embedded (by default the student shipped in the "
        "package; --no-weights for the bot without a network), refuse it over the CodeCup "
        "size limit, and print its path, size, modules, weights and sha256. --check also plays a "
        "whole game as red and one as white against a scripted opponent in a fresh, isolated "
        "interpreter (exit code 1 if that fails). --target cpp writes the native twin instead: one "
        "C++17 file, standard library only (--check compiles it with g++ first; no compiler: one "
        "line, exit code 2).",
    )
    parser.add_argument(
        "--target",
        choices=tuple(DEFAULT_OUTS),
        default="python",
        help="python: one standard-library Python file (default); cpp: one C++17 file, standard library "
        "only (the native twin of the bot, assembled from tw_rl/native/src)",
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        default=None,
        help="the file to write (default submission.py, or submission.cpp with --target cpp)",
    )
    weights = parser.add_mutually_exclusive_group()
    weights.add_argument(
        "--weights",
        metavar="FILE",
        default=None,
        help="the weights file to embed (default: the shipped student, tw_rl/codecup/student-default.twnet)",
    )
    weights.add_argument(
        "--no-weights",
        action="store_true",
        help="embed no network: the bot plays with its territory evaluator",
    )
    weights.add_argument(
        "--run",
        metavar="DIR",
        default=None,
        help="first distil a new student from this training run (its self-play shards and newest "
        "checkpoint, the settings of configs/export.yaml) and embed that",
    )
    # None = not given: these go with --run only; the defaults are the export config's.
    distil = parser.add_argument_group("distillation (with --run)")
    distil.add_argument(
        "--teacher",
        metavar="CKPT",
        default=None,
        help="teacher checkpoint, or 'default': the shipped one (default: the run's newest)",
    )
    distil.add_argument(
        "--steps", type=int, default=None, help=f"gradient steps (default {defaults.distill.steps})"
    )
    distil.add_argument(
        "--baseline-games",
        type=int,
        default=None,
        help="games the teacher plays against each baseline for extra positions "
        f"(default {defaults.baseline_games})",
    )
    distil.add_argument(
        "--student-dir",
        metavar="DIR",
        default=None,
        help="where the student's weights file and TensorBoard log go (default exports/<time stamp>)",
    )
    parser.add_argument(
        "--check", action="store_true", help="also play the built file through a game as each colour"
    )
    parser.set_defaults(func=run)


def export_config_of(args: argparse.Namespace, folder: Path) -> ExportConfig:
    """The distillation ``--run`` asks for: the export config's defaults, the given flags on top."""
    if not (Path(args.run) / "selfplay").is_dir():
        raise CliError(f"{args.run} is not a training run folder (no selfplay/ in it)")
    if args.steps is not None and args.steps < 1:
        raise CliError(f"--steps must be at least 1, got {args.steps}")
    if args.baseline_games is not None and args.baseline_games < 0:
        raise CliError(f"--baseline-games must be >= 0, got {args.baseline_games}")
    cfg = ExportConfig(run_dir=str(args.run), out=str(folder / "student.twnet"))
    cfg.progress = sys.stderr.isatty()
    if args.teacher is not None:
        cfg.teacher = args.teacher
    if args.steps is not None:
        cfg.distill.steps = args.steps
    if args.baseline_games is not None:
        cfg.baseline_games = args.baseline_games
    return cfg


def distil(args: argparse.Namespace) -> Path:
    """``tw-rl export --run DIR``: distil a student and write its weights file; its path."""
    from tw_rl.export.pipeline import export_student  # torch

    folder = Path(args.student_dir or Path("exports") / time.strftime("%Y-%m-%d_%H-%M-%S"))
    cfg = export_config_of(args, folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        report = export_student(cfg, folder, log=lambda line: print(line, file=sys.stderr))
    except (ValueError, OSError, WeightsError) as err:  # CheckpointError, ShardFormatError: ValueErrors
        raise CliError(str(err)) from None
    for line in report.lines():
        print(line)
    return report.out


def weights_of(args: argparse.Namespace) -> Path | None:
    """The weights file to embed (None: no network)."""
    if args.run is None and (
        args.teacher is not None or args.steps is not None or args.baseline_games is not None
    ):
        raise CliError("--teacher, --steps and --baseline-games go with --run")
    if args.no_weights:
        return None
    if args.run is not None:
        return distil(args)
    if args.weights is not None:
        return Path(args.weights)
    weights = default_weights(CODECUP_SIZE)
    if weights is None:
        raise CliError(
            f"the shipped student (tw_rl/codecup/{DEFAULT_NETWORKS[CODECUP_SIZE]}) is missing from this "
            "install; give --weights FILE or --no-weights"
        )
    return Path(weights)


def summary_and_check(info, check: bool, play: Callable[[Path], list]) -> int:
    """Print what was built; with ``check``, play the file (``play(path)``: the check games'
    reports) and print the verdict; the exit code (1: a check game failed)."""
    for line in info.summary_lines():
        print(line)
    sys.stdout.flush()
    if not check:
        return 0
    reports = play(info.path)
    print(submission_check.format_check(reports))
    sys.stdout.flush()
    return 0 if all(report.ok for report in reports) else 1


def run_cpp(args: argparse.Namespace, weights: Path | None) -> int:
    """``--target cpp``: the C++ file; ``--check`` compiles it and plays the check games."""
    try:
        info = native_build.build_native_submission(weights, Path(args.out or DEFAULT_OUTS["cpp"]))
        return summary_and_check(info, args.check, submission_check.check_native_submission)
    except native_build.NativeBuildError as err:  # a missing compiler too
        raise CliError(str(err)) from None


def run(args: argparse.Namespace) -> int:
    weights = weights_of(args)
    if args.target == "cpp":
        return run_cpp(args, weights)
    try:
        info = submission.build_submission(weights, Path(args.out or DEFAULT_OUT))
    except submission.SubmissionError as err:
        raise CliError(str(err)) from None
    return summary_and_check(info, args.check, submission_check.check_submission)
