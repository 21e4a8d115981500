"""The ``tw-rl`` command line: one subcommand per tool, each a parser builder and a function.

    tw-rl analyze RECORD          one JSON line per position of a game record, then the result
    tw-rl show RECORD [--ply K]   a text board (and optionally an SVG picture) of one position
    tw-rl referee A B [--games N]  a match between two CodeCup-protocol programs
    tw-rl export [--out FILE]     the one-file CodeCup submission, built from tw_rl/codecup
    tw-rl evaluate --players P ... Elo ratings of checkpoints, baselines and programs (arena)

To add a command, write ``_add_NAME(subparsers)`` that builds its parser and sets
``func=_cmd_NAME``, write ``_cmd_NAME(args) -> int``, and list the builder in ``COMMANDS``.
A command reports a user mistake by raising ``CliError``: ``main`` prints it as one
``error: ...`` line on stderr and returns exit code 2.

This module stays free of the learning stack (torch, gymnasium, hydra).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from tw_rl.core.hexgrid import SIZES
from tw_rl.core.notation import NOTATIONS, PASS, cell_name, parse_cell, record_words, text_board
from tw_rl.core.rules import VARIANTS, Rules
from tw_rl.core.state import RED, WHITE, State
from tw_rl.files import write_atomic

COLOUR_WORDS = {RED: "red", WHITE: "white"}


class CliError(Exception):
    """A user mistake (bad record, bad option value): one line, exit code 2."""


# --------------------------------------------------------------------------- game records


@dataclass
class Position:
    """One position of a replayed record (a batch-of-one State) and how it was reached."""

    ply: int
    state: State
    move_name: str | None  # the move that led here, as written in the record


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


def _check_start(rules: Rules, red_cell: int, white_cell: int, names: tuple[str, str]) -> None:
    grid = rules.grid
    for colour, cell, name in (("red", red_cell, names[0]), ("white", white_cell, names[1])):
        if cell == grid.centre:
            raise CliError(f"start: {colour}'s start cell {name} is the centre (the neutral stack's cell)")
        if rules.codecup and grid.on_border[cell]:
            raise CliError(f"start: {colour}'s start cell {name} is on the border (not allowed in CodeCup)")
    if red_cell == white_cell:
        raise CliError(f"start: white's start cell {names[1]} is red's start cell too")
    if rules.codecup and white_cell in grid.neighbours[red_cell]:
        raise CliError(
            f"start: white's start cell {names[1]} touches red's start cell {names[0]} "
            "(not allowed in CodeCup)"
        )


def replay(rules: Rules, words: Iterable[tuple[int, str]], notation: str) -> Iterator[Position]:
    """Play a record through the engine, yielding ply 0 and the position after every move.

    Legality is checked before each move (``Rules.step`` would turn an illegal move into a
    forfeit); the first bad start cell or move raises ``CliError`` naming the ply and the move.
    Positions already yielded stay valid.
    """
    grid = rules.grid
    words = iter(words)
    starts: list[int] = []
    names: list[str] = []
    for colour in ("red", "white"):
        item = next(words, None)
        if item is None:
            raise CliError("the record ends before red's and white's start cells (its first two lines)")
        number, word = item
        try:
            starts.append(parse_cell(grid, word, notation, allow_pass=False))
        except ValueError as err:
            raise CliError(f"start: {colour}'s start cell (line {number}): {err}") from None
        names.append(word)
    _check_start(rules, starts[0], starts[1], (names[0], names[1]))
    state = rules.start(starts[0], starts[1])
    yield Position(0, state, None)
    for ply, (number, word) in enumerate(words):
        try:
            action = parse_cell(grid, word, notation)
        except ValueError as err:
            raise CliError(f"ply {ply}: move {err} (line {number})") from None
        if state.terminated[0]:
            raise CliError(f"ply {ply}: move {word} comes after the end of the game (line {number})")
        mover = COLOUR_WORDS[int(state.to_move[0])]
        if not rules.legal_mask(state)[0, action]:
            reason = rules.why_illegal(state, action)
            raise CliError(f"ply {ply}: move {word} is illegal for {mover}: {reason} (line {number})")
        state = rules.step(state, action)
        yield Position(ply + 1, state, word)


def _territory_counts(rules: Rules, state: State) -> tuple[int, int]:
    rules.ensure_territory(state)
    counts = state.territory[0].sum(axis=1)
    return int(counts[0]), int(counts[1])


def _legal_names(rules: Rules, state: State, notation: str) -> list[str]:
    grid = rules.grid
    mask = rules.legal_mask(state)[0]
    names = sorted(cell_name(grid, int(i), notation) for i in np.flatnonzero(mask[: grid.num_cells]))
    if mask[grid.num_cells]:
        names.append(PASS)
    return names


def _result(rules: Rules, state: State) -> tuple[tuple[int, int], str | None]:
    """((red points, white points), winner word or None while the game goes on)."""
    points = rules.score(state)[0]
    winner = None
    if state.terminated[0]:
        code = int(rules.winner(state)[0])
        winner = COLOUR_WORDS.get(code, "draw")
    return (int(points[0]), int(points[1])), winner


def _add_game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", metavar="RECORD", help="game record file, or - for stdin")
    parser.add_argument("--size", type=int, choices=SIZES, default=6, help="cells per side (default 6)")
    parser.add_argument("--rules", choices=VARIANTS, default="codecup", help="rule variant (default codecup)")
    parser.add_argument(
        "--notation", choices=NOTATIONS, default="diff", help="cell-name reading (default diff)"
    )


def _rules_of(args: argparse.Namespace) -> Rules:
    # A record begins with both start cells already placed (after any pie choice), so the
    # set-up option plays no part: the judge set-up is valid for both variants.
    return Rules(args.size, args.rules, setup="judge")


# ------------------------------------------------------------------------------- analyze


def _add_analyze(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "analyze",
        help="print one JSON line per position of a game record",
        description="Replay a game record and print, for every position, the ply, the side to move, "
        "the legal moves, the simulated territory counts and whether the game is over; then the score.",
    )
    _add_game_options(parser)
    parser.set_defaults(func=_cmd_analyze)


def _cmd_analyze(args: argparse.Namespace) -> int:
    rules = _rules_of(args)
    out = sys.stdout
    stream = _open_record(args.record)
    last: Position | None = None
    try:
        for position in replay(rules, _record_words(stream, args.record), args.notation):
            state = position.state
            red, white = _territory_counts(rules, state)
            line = {
                "ply": position.ply,
                "to_move": COLOUR_WORDS[int(state.to_move[0])],
                "legal": _legal_names(rules, state, args.notation),
                "territory": {"red": red, "white": white},
                "over": bool(state.terminated[0]),
            }
            out.write(json.dumps(line) + "\n")
            out.flush()
            last = position
    finally:
        if stream is not sys.stdin:
            stream.close()
    assert last is not None
    (red_points, white_points), winner = _result(rules, last.state)
    final = {
        "score": {"red": red_points, "white": white_points},
        "winner": winner,
        "over": bool(last.state.terminated[0]),
        "plies": last.ply,
    }
    out.write(json.dumps(final) + "\n")
    out.flush()
    return 0


# ---------------------------------------------------------------------------------- show


def _add_show(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "show",
        help="draw one position of a game record as text (and optionally SVG)",
        description="Replay a game record and draw the position at one ply (default: the last) as a "
        "text board with the last move in brackets; --svg also writes a picture.",
    )
    _add_game_options(parser)
    parser.add_argument("--ply", type=int, default=None, help="the ply to show (default: the last)")
    parser.add_argument("--svg", metavar="FILE", default=None, help="also write an SVG picture to FILE")
    parser.set_defaults(func=_cmd_show)


def _write_file(path: str, text: str) -> None:
    try:
        write_atomic(path, text)
    except OSError as err:
        raise CliError(f"cannot write {path}: {err.strerror or err}") from None


def _describe(rules: Rules, position: Position) -> str:
    state = position.state
    red, white = _territory_counts(rules, state)
    (red_points, white_points), winner = _result(rules, state)
    if position.move_name is None:
        last = "start position"
    else:
        mover = COLOUR_WORDS[3 - int(state.to_move[0])]
        last = f"last move {position.move_name} by {mover}"
    if state.terminated[0]:
        status = "game over, " + ("a draw" if winner == "draw" else f"{winner} wins")
    else:
        status = f"{COLOUR_WORDS[int(state.to_move[0])]} to move"
    return (
        f"ply {position.ply} ({last}); {status}; territory red {red}, white {white}; "
        f"score red {red_points}, white {white_points}"
    )


def _cmd_show(args: argparse.Namespace) -> int:
    rules = _rules_of(args)
    grid = rules.grid
    stream = _open_record(args.record)
    try:
        positions = list(replay(rules, _record_words(stream, args.record), args.notation))
    finally:
        if stream is not sys.stdin:
            stream.close()
    last_ply = positions[-1].ply
    ply = last_ply if args.ply is None else args.ply
    if not 0 <= ply <= last_ply:
        raise CliError(f"--ply {ply} is out of range: the record has plies 0 to {last_ply}")
    position = positions[ply]
    state = position.state
    last_move = int(state.last_move[0])
    print(text_board(grid, state.owner[0], state.height[0], last_move, args.notation))
    print(_describe(rules, position))
    if args.svg:
        from tw_rl.core.picture import svg_board

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


# ------------------------------------------------------------------------------- referee


def _add_referee(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "referee",
        help="play a match between two CodeCup-protocol programs",
        description="Play games between two programs that speak the CodeCup protocol on stdin/stdout, "
        "judge them by the CodeCup rules (faults included), and write every game, results.jsonl and "
        "summary.json to a results folder. Pairs of games share a judge-drawn opening; A is red in "
        "games 1, 3, 5, ...",
    )
    parser.add_argument("program_a", metavar="A", help='command line of program A, e.g. "python bot.py"')
    parser.add_argument("program_b", metavar="B", help="command line of program B")
    parser.add_argument("--games", type=int, default=2, help="number of games (default 2)")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the drawn openings (default 0)")
    parser.add_argument("--size", type=int, choices=SIZES, default=6, help="cells per side (default 6)")
    parser.add_argument(
        "--time", type=float, default=30.0, help="thinking seconds per player per game (default 30)"
    )
    parser.add_argument(
        "--notation", choices=NOTATIONS, default="diff", help="cell-name reading (default diff)"
    )
    parser.add_argument(
        "--out", metavar="DIR", default=None, help="results folder (default referee-results/<time stamp>)"
    )
    parser.set_defaults(func=_cmd_referee)


def _cmd_referee(args: argparse.Namespace) -> int:
    import signal
    import threading
    import time

    from tw_rl import referee

    out = args.out or os.path.join("referee-results", time.strftime("%Y%m%d-%H%M%S"))

    def terminate(signum, frame):
        raise KeyboardInterrupt

    # A kill (SIGTERM) stops the match as Ctrl-C does; handlers can only be set in the main thread.
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, terminate) if in_main else None
    try:
        a = referee.Program.parse("A", args.program_a)
        b = referee.Program.parse("B", args.program_b)
        match = referee.run_match(
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
        )
    except referee.RefereeError as err:
        raise CliError(str(err)) from None
    except KeyboardInterrupt:
        print(f"interrupted: the finished games are in {out}", file=sys.stderr)
        return 130
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)
    print(referee.format_table(match))
    sys.stdout.flush()
    hint = match.crash_hint()
    if hint:
        print(f"hint: {hint}", file=sys.stderr)
    return 0


# -------------------------------------------------------------------------------- export


def _add_export(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write the one-file CodeCup submission (the tw_rl.codecup bot)",
        description="Generate one self-contained, standard-library-only Python file from the "
        "tw_rl.codecup sources with a weights file embedded (by default the student shipped in the "
        "package; --no-weights for the bot without a network), refuse it over the CodeCup "
        "size limit, and print its path, size, modules, weights and sha256. --check also plays a "
        "whole game as red and one as white against a scripted opponent in a fresh, isolated "
        "interpreter (exit code 1 if that fails).",
    )
    parser.add_argument(
        "--out", metavar="FILE", default="submission.py", help="the file to write (default submission.py)"
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
    distil = parser.add_argument_group("distillation (with --run)")
    distil.add_argument("--teacher", metavar="CKPT", default="", help="teacher checkpoint (default: newest)")
    distil.add_argument("--steps", type=int, default=None, help="gradient steps (default 3000)")
    distil.add_argument(
        "--baseline-games",
        type=int,
        default=None,
        help="games the teacher plays against each baseline for extra positions (default 0)",
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
    parser.set_defaults(func=_cmd_export)


def _distil_for_export(args: argparse.Namespace):
    """``tw-rl export --run DIR``: distil a student (configs/export.yaml defaults) -> its path."""
    import time
    from pathlib import Path

    from tw_rl.codecup.weights import WeightsError
    from tw_rl.export.student import ExportConfig, export_student
    from tw_rl.training.learner import CheckpointError

    run = Path(args.run)
    if not (run / "selfplay").is_dir():
        raise CliError(f"{run} is not a training run folder (no selfplay/ in it)")
    if args.steps is not None and args.steps < 1:
        raise CliError(f"--steps must be at least 1, got {args.steps}")
    if args.baseline_games is not None and args.baseline_games < 0:
        raise CliError(f"--baseline-games must be >= 0, got {args.baseline_games}")
    folder = Path(args.student_dir or Path("exports") / time.strftime("%Y-%m-%d_%H-%M-%S"))
    cfg = ExportConfig(run_dir=str(run), teacher=args.teacher, out=str(folder / "student.twnet"))
    cfg.progress = sys.stderr.isatty()
    if args.steps is not None:
        cfg.distill.steps = args.steps
    if args.baseline_games is not None:
        cfg.baseline_games = args.baseline_games
    try:
        folder.mkdir(parents=True, exist_ok=True)
        report = export_student(cfg, folder, log=lambda line: print(line, file=sys.stderr))
    except (ValueError, FileNotFoundError, CheckpointError, WeightsError, OSError) as err:
        raise CliError(str(err)) from None
    for line in report.lines():
        print(line)
    return report.out


def _cmd_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tw_rl.codecup.evaluation import DEFAULT_WEIGHTS
    from tw_rl.export import submission

    if args.run is None and (args.teacher or args.steps is not None or args.baseline_games is not None):
        raise CliError("--teacher, --steps and --baseline-games go with --run")
    if args.no_weights:
        weights = None
    elif args.run is not None:
        weights = _distil_for_export(args)
    elif args.weights is not None:
        weights = Path(args.weights)
    else:
        weights = Path(DEFAULT_WEIGHTS)
        if not weights.is_file():
            raise CliError(
                f"the shipped student {weights} is missing from this install; "
                "give --weights FILE or --no-weights"
            )
    try:
        info = submission.build_submission(weights, Path(args.out))
    except submission.SubmissionError as err:
        raise CliError(str(err)) from None
    for line in info.summary_lines():
        print(line)
    sys.stdout.flush()
    for warning in info.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not args.check:
        return 0
    reports = submission.check_submission(info.path)
    print(submission.format_check(reports))
    sys.stdout.flush()
    return 0 if all(report.ok for report in reports) else 1


# ------------------------------------------------------------------------------ evaluate


def _add_evaluate(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="rate checkpoints, baselines and programs against each other (Elo, stored games)",
        description="Play games between the players, colours balanced, always on the pairing whose "
        "rating difference is most uncertain, until the game budget (games already in the database "
        "count) or the target interval width is reached; store every game in a SQLite database as it "
        "ends; fit Bradley-Terry ratings (Elo, anchor = 0, 95%% intervals) over all stored games and "
        "write ratings.csv, ratings.json and Elo pictures to --out. Players: random, greedy, mcts[@N], "
        "ckpt:PATH[@SIMS] (a file, folder or glob), weights:PATH, program:COMMAND; NAME=... names one. "
        "--games 0 only rates what is stored.",
    )
    parser.add_argument("--players", nargs="+", metavar="P", default=["random", "greedy"], help="the players")
    parser.add_argument("--games", type=int, default=200, help="game budget among the players (default 200)")
    parser.add_argument(
        "--db", default="arena/results.sqlite", help="results database (default arena/results.sqlite)"
    )
    parser.add_argument("--anchor", default="random", help="the player rated 0 (default random)")
    parser.add_argument(
        "--out", metavar="DIR", default="arena", help="folder for ratings and pictures (default arena)"
    )
    parser.add_argument(
        "--ci-width", type=float, default=0.0, help="stop when every 95%% interval is this narrow (Elo)"
    )
    parser.add_argument("--batch-size", type=int, default=32, help="in-process games at once (default 32)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="referee games at once; with Ray: game batches at once (default 1)",
    )
    parser.add_argument(
        "--ray-address",
        default="",
        metavar="ADDR",
        help="play the games as Ray tasks: local (start Ray here), auto or HOST:PORT (a cluster); "
        "needs pip install -e '.[ray]' (default: no Ray)",
    )
    parser.add_argument(
        "--simulations", type=int, default=64, help="checkpoint search budget without @N (default 64)"
    )
    parser.add_argument(
        "--time", type=float, default=30.0, help="referee: seconds per program per game (default 30)"
    )
    parser.add_argument("--size", type=int, choices=SIZES, default=6, help="cells per side (default 6)")
    parser.add_argument("--seed", type=int, default=0, help="seed of openings and players (default 0)")
    parser.add_argument("--device", default="cpu", help="torch device of checkpoint players (default cpu)")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: torch's)")
    parser.add_argument("--no-tensorboard", action="store_true", help="do not log the Elo curve to runs' tb/")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--import-referee",
        nargs="+",
        metavar="DIR",
        default=[],
        help="first store the games of these tw-rl referee results folders (each program is the "
        "program:COMMAND player of its command line, named as in --players if listed there)",
    )
    parser.set_defaults(func=_cmd_evaluate)


def _cmd_evaluate(args: argparse.Namespace) -> int:
    import signal
    import threading

    from tw_rl.config import EvaluateConfig
    from tw_rl.rating.arena import ArenaError, evaluate
    from tw_rl.rating.results_db import ResultsDBError

    cfg = EvaluateConfig(
        players=list(args.players),
        games=args.games,
        ci_width=args.ci_width,
        db=args.db,
        anchor=args.anchor,
        batch_size=args.batch_size,
        jobs=args.jobs,
        ray_address=args.ray_address,
        import_referee=list(args.import_referee),
        seed=args.seed,
        out=args.out,
        size=args.size,
        simulations=args.simulations,
        time=args.time,
        device=args.device,
        threads=args.threads,
        tensorboard=not args.no_tensorboard,
        progress=not args.no_progress,
    )

    def terminate(signum, frame):
        raise KeyboardInterrupt

    # A kill (SIGTERM) stops like Ctrl-C: the finished games are stored, the ratings written.
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, terminate) if in_main else None
    try:
        result = evaluate(cfg, log=lambda line: print(line, file=sys.stderr))
    except (ArenaError, ResultsDBError) as err:
        raise CliError(str(err)) from None
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)
    print(result.report(cfg.db))
    sys.stdout.flush()
    return 130 if result.stopped == "interrupted" else 0


# ---------------------------------------------------------------------------------- main

COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_analyze,
    _add_show,
    _add_referee,
    _add_export,
    _add_evaluate,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tw-rl", description="Tools for the Tumbleweed RL framework.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in COMMANDS:
        add(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code (0 success, 2 usage or record error)."""
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


if __name__ == "__main__":
    sys.exit(main())
